# drawn by csreg
set encoding utf8
set terminal svg size 1000,700 enhanced font 'sans,12' background '#ffffff'
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
set output './maxcut.svg'
$S1 << EOD
1 100
2 150
3 170
4 180
5 181
6 181
EOD
$S2 << EOD
1 90
2 140
3 175
4 178
5 184
6 185
EOD
set title 'MAX-CUT on G10' noenhanced
set xlabel 'iteration' enhanced
set ylabel 'cut value (total weight of cut edges)' enhanced
set grid back ls 100
set key outside top center horizontal
plot $S1 using 1:2 with lines lt 1 title 'trial 1' noenhanced, $S2 using 1:2 with lines lt 2 title 'trial 2' noenhanced, 190 with lines dt 2 lw 2 lc rgb '#000000' title 'best known cut (190)' noenhanced
unset output
