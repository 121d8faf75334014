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
set output '/tmp/traj.png'
# landscape: 6 x 5 grid, colour = log10(max(z, floor))
# floor = 1.6e-05
$Z << EOD
-2 -1 0.9542425
-1.2 -1 -0.7130946
-0.4 -1 -0.1514414
0.4 -1 -0.1514414
1.2 -1 -0.7130946
2 -1 0.9542425

-2 -0.5 1.148063
-1.2 -0.5 0.1510939
-0.4 -0.5 -2.091515
0.4 -0.5 -2.091515
1.2 -0.5 0.1510939
2 -0.5 1.148063

-2 0 1.20412
-1.2 0 0.316725
-0.4 0 -1.59176
0.4 0 -1.59176
1.2 0 0.316725
2 0 1.20412

-2 0.5 1.148063
-1.2 0.5 0.1510939
-0.4 0.5 -2.091515
0.4 0.5 -2.091515
1.2 0.5 0.1510939
2 0.5 1.148063

-2 1 0.9542425
-1.2 1 -0.7130946
-0.4 1 -0.1514414
0.4 1 -0.1514414
1.2 1 -0.7130946
2 1 0.9542425

EOD
$TL << EOD
-2 -2
2 2

-2 2
2 -2

EOD
$TP << EOD
0 0
EOD
# contour levels: every 0.5 from -2
$C << EOD
-0.4 -0.5235854 -0.0326459 0.02358544
0.4 -0.5235854 -0.8 0
0.4326459 -0.5 -0.0326459 -0.02358544
-0.4326459 -0.5 0.0326459 0.09155986
0.4 -0.4084401 -0.8 0
0.4326459 -0.5 -0.0326459 0.09155986
-0.4 0.4084401 -0.0326459 0.09155986
0.4 0.4084401 -0.8 0
0.4326459 0.5 -0.0326459 -0.09155986
-0.4326459 0.5 0.0326459 0.02358544
0.4 0.5235854 -0.8 0
0.4326459 0.5 -0.0326459 0.02358544
-0.4 -0.6524465 -0.2110096 0.1524465
0.4 -0.6524465 -0.8 0
0.6110096 -0.5 -0.2110096 -0.1524465
-0.6110096 -0.5 0.1725456 0.5
0.6110096 -0.5 -0.1725456 0.5
-0.438464 0 -0.1725456 0.5
0.438464 0 0.1725456 0.5
-0.6110096 0.5 0.2110096 0.1524465
0.4 0.6524465 -0.8 0
0.6110096 0.5 -0.2110096 0.1524465
-0.4 -0.7813076 -0.3893733 0.2813076
0.4 -0.7813076 -0.8 -1.110223e-16
0.7893733 -0.5 -0.3893733 -0.2813076
-0.7893733 -0.5 0.1413189 0.5
0.7893733 -0.5 -0.1413189 0.5
-0.6480544 0 -0.1413189 0.5
0.6480544 0 0.1413189 0.5
-0.7893733 0.5 0.3893733 0.2813076
0.4 0.7813076 -0.8 -1.110223e-16
0.7893733 0.5 -0.3893733 0.2813076
-1.302244 -1 0.1022443 0.1232918
-0.8964751 -1 0.4964751 0.08983128
-0.967737 -0.5 -0.232263 -0.3767082
0.4 -0.9101687 -0.8 0
0.4 -0.9101687 0.4964751 -0.08983128
1.2 -0.8767082 -0.232263 0.3767082
1.302244 -1 -0.1022443 0.1232918
-0.967737 -0.5 0.1100923 0.5
0.967737 -0.5 -0.1100923 0.5
-0.8576447 0 -0.1100923 0.5
0.8576447 0 0.1100923 0.5
-1.2 0.8767082 -0.1022443 0.1232918
-1.2 0.8767082 0.232263 -0.3767082
-0.4 0.9101687 -0.4964751 0.08983128
0.4 0.9101687 -0.8 0
0.967737 0.5 0.232263 0.3767082
0.8964751 1 -0.4964751 -0.08983128
1.302244 1 -0.1022443 -0.1232918
-1.542148 -1 0.3421478 0.4125805
-1.146101 -0.5 -0.05389934 -0.08741953
1.2 -0.5874195 -0.05389934 0.08741953
1.542148 -1 -0.3421478 0.4125805
-1.146101 -0.5 0.07886565 0.5
1.146101 -0.5 -0.07886565 0.5
-1.067235 0 -0.07886565 0.5
1.067235 0 0.07886565 0.5
-1.2 0.5874195 -0.3421478 0.4125805
-1.146101 0.5 -0.05389934 0.08741953
1.146101 0.5 0.05389934 0.08741953
1.542148 1 -0.3421478 -0.4125805
-1.782051 -1 0.3020777 0.5
1.782051 -1 -0.3020777 0.5
-1.479974 -0.5 0.1147484 0.5
1.479974 -0.5 -0.1147484 0.5
-1.365225 0 -0.1147484 0.5
1.365225 0 0.1147484 0.5
-1.479974 0.5 -0.3020777 0.5
1.479974 0.5 0.3020777 0.5
-1.88119 -0.5 -0.1188102 -0.3819588
2 -0.8819588 -0.1188102 0.3819588
-1.88119 -0.5 0.06520706 0.5
1.88119 -0.5 -0.06520706 0.5
-1.815983 0 -0.06520706 0.5
1.815983 0 0.06520706 0.5
-1.88119 0.5 -0.1188102 0.3819588
1.88119 0.5 0.1188102 0.3819588
EOD
set title 'iterates on the ℓ_{bin} landscape (log_{10} scale)' enhanced
set xlabel 'x_{1}' enhanced
set ylabel 'x_{2}' enhanced
set xrange [-2:2] noextend
set yrange [-1:1] noextend
set clip two
set palette defined (0 '#440154', 1 '#472C7A', 2 '#3B518B', 3 '#2C718E', 4 '#21908D', 5 '#27AD81', 6 '#5CC863', 7 '#AADC32', 8 '#FDE725')
set cblabel 'log_{10} ℓ_{bin}(x)' enhanced
set size ratio -1
set key outside top center horizontal
$GC << EOD
0.8 1
2 -0.2
EOD
$GF << EOD
-1.5 -0.2
-1 0.4
-0.6 0.6

EOD
$GS << EOD
1.5 0.3
1.2 0.5
1 0.8
0.9 0.9

EOD
$GT << EOD
-1.5 -0.2
1.5 0.3
EOD
$GX << EOD
0.9 0.9
EOD
$GI << EOD
0.9 0.9
EOD
plot $Z using 1:2:3 with image notitle, $C using 1:2:3:4 with vectors nohead lc rgb '#70FFFFFF' lw 1 notitle, $TL using 1:2 with lines lc rgb '#D55E00' lw 2.5 dt 2 title 'target set' noenhanced, $TP using 1:2 with points pt 7 ps 1.8 lc rgb '#D55E00' notitle, $GC using 1:2 with lines lc rgb '#CC79A7' lw 2.5 title 'feasible set Ax = b' noenhanced, $GF using 1:2 with linespoints lc rgb '#000000' lw 2 pt 7 ps 0.5 title 'other starts' noenhanced, $GF using 1:2 with linespoints lc rgb '#BBBBBB' lw 0.8 pt 7 ps 0.3 notitle, $GS using 1:2 with linespoints lc rgb '#000000' lw 4 pt 7 ps 0.8 title 'FISTA iterates' enhanced, $GS using 1:2 with linespoints lc rgb '#FFFFFF' lw 1.5 pt 7 ps 0.5 notitle, $GT using 1:2 with points pt 7 ps 2.2 lc rgb '#FFFFFF' notitle, $GT using 1:2 with points pt 6 ps 2.2 lw 2 lc rgb '#000000' title 'starts' noenhanced, $GX using 1:2 with points pt 3 ps 2.6 lw 3 lc rgb '#56B4E9' title 'x^{*}' enhanced, $GI using 1:2 with points pt 5 ps 2 lc rgb '#FFFFFF' notitle, $GI using 1:2 with points pt 4 ps 2 lw 2 lc rgb '#000000' title 'iterate' noenhanced
unset output
