# drawn by csreg
set encoding utf8
set terminal pngcairo size 1000,700 enhanced font 'sans,12' background '#ffffff'
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
set output './hist_grid.png'
# snapshot 1: 12 values
$H1 << EOD
-1.05625 1
-0.76875 1
-0.48125 1
-0.19375 1
0.09375 3
0.38125 1
0.66875 2
0.95625 2
EOD
# snapshot 2: 12 values
$H2 << EOD
-1.05625 4
-0.76875 1
-0.48125 0
-0.19375 0
0.09375 1
0.38125 0
0.66875 0
0.95625 6
EOD
# snapshot 3: 12 values
$H3 << EOD
-1.05625 6
-0.76875 0
-0.48125 0
-0.19375 0
0.09375 0
0.38125 0
0.66875 0
0.95625 6
EOD
set boxwidth 0.2875 absolute
set style fill solid 0.75 border lc rgb '#004B75'
set xrange [-1.2:1.1]
set yrange [0:*]
set offsets 0, 0, graph 0.05, 0
set grid back ls 100
unset key
set arrow from -1, graph 0 to -1, graph 1 nohead front lc rgb '#D55E00' lw 1.5 dt 2
set arrow from 1, graph 0 to 1, graph 1 nohead front lc rgb '#D55E00' lw 1.5 dt 2
set xlabel 'weight' noenhanced
set ylabel 'count' enhanced
set multiplot layout 2,2 title 'conv1 weights' noenhanced
set title 'epoch 0' noenhanced
plot $H1 using 1:2 with boxes lt 1 notitle
set title 'epoch 5' noenhanced
plot $H2 using 1:2 with boxes lt 1 notitle
set title 'epoch 20' noenhanced
plot $H3 using 1:2 with boxes lt 1 notitle
unset multiplot
unset output
