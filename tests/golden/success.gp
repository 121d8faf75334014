# drawn by csreg
set encoding utf8
set terminal pdfcairo size 10.00in,7.00in enhanced font 'sans,12'
set linetype 1 lc rgb '#0072B2' lw 2 pt 7 ps 1.2
set linetype 2 lc rgb '#D55E00' lw 2 pt 5 ps 1.2
set linetype 3 lc rgb '#009E73' lw 2 pt 9 ps 1.2
set linetype 4 lc rgb '#E69F00' lw 2 pt 11 ps 1.2
set linetype 5 lc rgb '#CC79A7' lw 2 pt 13 ps 1.2
set linetype 6 lc rgb '#56B4E9' lw 2 pt 6 ps 1.2
set linetype 7 lc rgb '#000000' lw 2 pt 4 ps 1.2
set linetype 8 lc rgb '#999999' lw 2 pt 8 ps 1.2
set linetype cycle 8
set style line 100 lc rgb '#c8c8c8' lw 1 dt 3
set border lw 1.2
set tics out nomirror
set output './fig1a.pdf'
$S1 << EOD
0.2988 0.1 0.03
0.3988 0.35 0.048
0.4988 0.8 0.04
0.5988 0.95 0.022
0.6988 1 0
EOD
$S2 << EOD
0.3012 0 0
0.4012 0.05 0.022
0.5012 0.4 0.049
0.6012 0.85 0.036
0.7012 1 0
EOD
$S3 << EOD
0.3 0.05
0.4 0.2
0.5 0.5
0.6 0.7
0.7 0.9
EOD
set title 'success rate vs γ' enhanced
set xlabel 'undersampling ratio γ = M/N' enhanced
set ylabel 'success rate' enhanced
set yrange [-0.02:1.02]
set ytics 0,0.2,1
set grid back ls 100
set key outside top center horizontal
set offsets graph 0.02, graph 0.02, 0, 0
plot $S1 using 1:2:3 with yerrorlines lt 1 title 'ℓ_{bin}' enhanced, $S2 using 1:2:3 with yerrorlines lt 2 title 'ℓ^{∞}' enhanced, $S3 using 1:2 with linespoints lt 3 title 'my_method{x}' noenhanced
unset output
