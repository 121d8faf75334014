# drawn by csreg
set encoding utf8
set terminal pngcairo size 800,600 enhanced font 'sans,12' background '#ffffff'
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
set output './trace.png'
# columns: iteration, objective, residual, tau, error to x*
$T << EOD
1 10 1 0.5 1
2 3 0.1 0.5 0.5
3 1 0.01 0.25 0.1
4 0.5 0.001 0.25 0
5 0.45 1e-05 0.25 0
EOD
set multiplot layout 2,2 title 'FISTA: solver trace' enhanced
set grid back ls 100
unset key
set xlabel 'iteration' enhanced
set ylabel 'objective' enhanced
set logscale y
set format y '10^{%L}'
plot $T using 1:2 with lines lt 1 notitle
set ylabel 'residual' enhanced
set logscale y
set format y '10^{%L}'
plot $T using 1:3 with lines lt 2 notitle
set ylabel 'step size τ' enhanced
set logscale y
set format y '10^{%L}'
plot $T using 1:4 with lines lt 3 notitle
set ylabel 'error to x^{*}' enhanced
unset logscale y
set format y '% h'
plot $T using 1:5 with lines lt 4 notitle
unset multiplot
unset output
