//! A straight-line `#[tape]` function of 1200 statements (with a local
//! block, a loop, a helper call on a borrowed array, `assert!`, tuple and
//! typed `let`s among them), the kind a code generator writes. Its
//! companions hold several thousand `let`s, which nested one scope each
//! overflowed rustc's stack in a dev build; it now builds with rustc's
//! default stack, and its gradient agrees with finite differences. Each
//! line reads the one before and one about half way back, through
//! functions that keep the values bounded.
//!
//! This file is written by a script; its lines follow ten forms in turn
//! (`v{k}` from `v{k - 1}` and `v{k / 2}`). A second function, `mixed`,
//! has long blocks of loops, branches, borrows and closures between its
//! `let`s, which the regrouping must leave whole.
#![deny(warnings)]
#![allow(clippy::all)]

mod fd;

#[mica::tape]
mod long {
    fn mix(p: &[f64; 2]) -> f64 {
        (p[0] * 0.75 + p[1] * 0.25).sin()
    }

    pub fn long(#[tracked] x: f64, #[tracked] y: f64, #[tracked] w: &[f64; 3]) -> f64 {
        let v0 = x * y;
        let v1 = v0.sin() - y * 0.5;
        let v2 = (v1 + v1) * 0.25;
        let v3 = v2.tanh() * y + v1 * 0.5;
        let mut v4 = v3 * 0.5;
        v4 += w[1] * v2.cos() * 0.1;
        let v5 = mix(&[v4, v2]);
        let v6 = {
            let mut s = v5;
            for i in 0..3 {
                s = (s + w[i] * v3).tanh();
            }
            s
        };
        assert!(v6.is_finite());
        let v7 = v6 - v3 * 0.125;
        let (v8, _) = (v7.sin() * 0.5 + v4 * 0.25, v7);
        let v9: f64 = v8 * v4.tanh() + 0.01 * y;
        let v10 = v9 * v5 * 0.5 + x;
        let v11 = v10.sin() - y * 0.5;
        let v12 = (v11 + v6) * 0.25;
        let v13 = v12.tanh() * y + v6 * 0.5;
        let mut v14 = v13 * 0.5;
        v14 += w[2] * v7.cos() * 0.1;
        let v15 = mix(&[v14, v7]);
        let v16 = {
            let mut s = v15;
            for i in 0..3 {
                s = (s + w[i] * v8).tanh();
            }
            s
        };
        assert!(v16.is_finite());
        let v17 = v16 - v8 * 0.125;
        let (v18, _) = (v17.sin() * 0.5 + v9 * 0.25, v17);
        let v19: f64 = v18 * v9.tanh() + 0.01 * y;
        let v20 = v19 * v10 * 0.5 + x;
        let v21 = v20.sin() - y * 0.5;
        let v22 = (v21 + v11) * 0.25;
        let v23 = v22.tanh() * y + v11 * 0.5;
        let mut v24 = v23 * 0.5;
        v24 += w[0] * v12.cos() * 0.1;
        let v25 = mix(&[v24, v12]);
        let v26 = {
            let mut s = v25;
            for i in 0..3 {
                s = (s + w[i] * v13).tanh();
            }
            s
        };
        assert!(v26.is_finite());
        let v27 = v26 - v13 * 0.125;
        let (v28, _) = (v27.sin() * 0.5 + v14 * 0.25, v27);
        let v29: f64 = v28 * v14.tanh() + 0.01 * y;
        let v30 = v29 * v15 * 0.5 + x;
        let v31 = v30.sin() - y * 0.5;
        let v32 = (v31 + v16) * 0.25;
        let v33 = v32.tanh() * y + v16 * 0.5;
        let mut v34 = v33 * 0.5;
        v34 += w[1] * v17.cos() * 0.1;
        let v35 = mix(&[v34, v17]);
        let v36 = {
            let mut s = v35;
            for i in 0..3 {
                s = (s + w[i] * v18).tanh();
            }
            s
        };
        assert!(v36.is_finite());
        let v37 = v36 - v18 * 0.125;
        let (v38, _) = (v37.sin() * 0.5 + v19 * 0.25, v37);
        let v39: f64 = v38 * v19.tanh() + 0.01 * y;
        let v40 = v39 * v20 * 0.5 + x;
        let v41 = v40.sin() - y * 0.5;
        let v42 = (v41 + v21) * 0.25;
        let v43 = v42.tanh() * y + v21 * 0.5;
        let mut v44 = v43 * 0.5;
        v44 += w[2] * v22.cos() * 0.1;
        let v45 = mix(&[v44, v22]);
        let v46 = {
            let mut s = v45;
            for i in 0..3 {
                s = (s + w[i] * v23).tanh();
            }
            s
        };
        assert!(v46.is_finite());
        let v47 = v46 - v23 * 0.125;
        let (v48, _) = (v47.sin() * 0.5 + v24 * 0.25, v47);
        let v49: f64 = v48 * v24.tanh() + 0.01 * y;
        let v50 = v49 * v25 * 0.5 + x;
        let v51 = v50.sin() - y * 0.5;
        let v52 = (v51 + v26) * 0.25;
        let v53 = v52.tanh() * y + v26 * 0.5;
        let mut v54 = v53 * 0.5;
        v54 += w[0] * v27.cos() * 0.1;
        let v55 = mix(&[v54, v27]);
        let v56 = {
            let mut s = v55;
            for i in 0..3 {
                s = (s + w[i] * v28).tanh();
            }
            s
        };
        assert!(v56.is_finite());
        let v57 = v56 - v28 * 0.125;
        let (v58, _) = (v57.sin() * 0.5 + v29 * 0.25, v57);
        let v59: f64 = v58 * v29.tanh() + 0.01 * y;
        let v60 = v59 * v30 * 0.5 + x;
        let v61 = v60.sin() - y * 0.5;
        let v62 = (v61 + v31) * 0.25;
        let v63 = v62.tanh() * y + v31 * 0.5;
        let mut v64 = v63 * 0.5;
        v64 += w[1] * v32.cos() * 0.1;
        let v65 = mix(&[v64, v32]);
        let v66 = {
            let mut s = v65;
            for i in 0..3 {
                s = (s + w[i] * v33).tanh();
            }
            s
        };
        assert!(v66.is_finite());
        let v67 = v66 - v33 * 0.125;
        let (v68, _) = (v67.sin() * 0.5 + v34 * 0.25, v67);
        let v69: f64 = v68 * v34.tanh() + 0.01 * y;
        let v70 = v69 * v35 * 0.5 + x;
        let v71 = v70.sin() - y * 0.5;
        let v72 = (v71 + v36) * 0.25;
        let v73 = v72.tanh() * y + v36 * 0.5;
        let mut v74 = v73 * 0.5;
        v74 += w[2] * v37.cos() * 0.1;
        let v75 = mix(&[v74, v37]);
        let v76 = {
            let mut s = v75;
            for i in 0..3 {
                s = (s + w[i] * v38).tanh();
            }
            s
        };
        assert!(v76.is_finite());
        let v77 = v76 - v38 * 0.125;
        let (v78, _) = (v77.sin() * 0.5 + v39 * 0.25, v77);
        let v79: f64 = v78 * v39.tanh() + 0.01 * y;
        let v80 = v79 * v40 * 0.5 + x;
        let v81 = v80.sin() - y * 0.5;
        let v82 = (v81 + v41) * 0.25;
        let v83 = v82.tanh() * y + v41 * 0.5;
        let mut v84 = v83 * 0.5;
        v84 += w[0] * v42.cos() * 0.1;
        let v85 = mix(&[v84, v42]);
        let v86 = {
            let mut s = v85;
            for i in 0..3 {
                s = (s + w[i] * v43).tanh();
            }
            s
        };
        assert!(v86.is_finite());
        let v87 = v86 - v43 * 0.125;
        let (v88, _) = (v87.sin() * 0.5 + v44 * 0.25, v87);
        let v89: f64 = v88 * v44.tanh() + 0.01 * y;
        let v90 = v89 * v45 * 0.5 + x;
        let v91 = v90.sin() - y * 0.5;
        let v92 = (v91 + v46) * 0.25;
        let v93 = v92.tanh() * y + v46 * 0.5;
        let mut v94 = v93 * 0.5;
        v94 += w[1] * v47.cos() * 0.1;
        let v95 = mix(&[v94, v47]);
        let v96 = {
            let mut s = v95;
            for i in 0..3 {
                s = (s + w[i] * v48).tanh();
            }
            s
        };
        assert!(v96.is_finite());
        let v97 = v96 - v48 * 0.125;
        let (v98, _) = (v97.sin() * 0.5 + v49 * 0.25, v97);
        let v99: f64 = v98 * v49.tanh() + 0.01 * y;
        let v100 = v99 * v50 * 0.5 + x;
        let v101 = v100.sin() - y * 0.5;
        let v102 = (v101 + v51) * 0.25;
        let v103 = v102.tanh() * y + v51 * 0.5;
        let mut v104 = v103 * 0.5;
        v104 += w[2] * v52.cos() * 0.1;
        let v105 = mix(&[v104, v52]);
        let v106 = {
            let mut s = v105;
            for i in 0..3 {
                s = (s + w[i] * v53).tanh();
            }
            s
        };
        assert!(v106.is_finite());
        let v107 = v106 - v53 * 0.125;
        let (v108, _) = (v107.sin() * 0.5 + v54 * 0.25, v107);
        let v109: f64 = v108 * v54.tanh() + 0.01 * y;
        let v110 = v109 * v55 * 0.5 + x;
        let v111 = v110.sin() - y * 0.5;
        let v112 = (v111 + v56) * 0.25;
        let v113 = v112.tanh() * y + v56 * 0.5;
        let mut v114 = v113 * 0.5;
        v114 += w[0] * v57.cos() * 0.1;
        let v115 = mix(&[v114, v57]);
        let v116 = {
            let mut s = v115;
            for i in 0..3 {
                s = (s + w[i] * v58).tanh();
            }
            s
        };
        assert!(v116.is_finite());
        let v117 = v116 - v58 * 0.125;
        let (v118, _) = (v117.sin() * 0.5 + v59 * 0.25, v117);
        let v119: f64 = v118 * v59.tanh() + 0.01 * y;
        let v120 = v119 * v60 * 0.5 + x;
        let v121 = v120.sin() - y * 0.5;
        let v122 = (v121 + v61) * 0.25;
        let v123 = v122.tanh() * y + v61 * 0.5;
        let mut v124 = v123 * 0.5;
        v124 += w[1] * v62.cos() * 0.1;
        let v125 = mix(&[v124, v62]);
        let v126 = {
            let mut s = v125;
            for i in 0..3 {
                s = (s + w[i] * v63).tanh();
            }
            s
        };
        assert!(v126.is_finite());
        let v127 = v126 - v63 * 0.125;
        let (v128, _) = (v127.sin() * 0.5 + v64 * 0.25, v127);
        let v129: f64 = v128 * v64.tanh() + 0.01 * y;
        let v130 = v129 * v65 * 0.5 + x;
        let v131 = v130.sin() - y * 0.5;
        let v132 = (v131 + v66) * 0.25;
        let v133 = v132.tanh() * y + v66 * 0.5;
        let mut v134 = v133 * 0.5;
        v134 += w[2] * v67.cos() * 0.1;
        let v135 = mix(&[v134, v67]);
        let v136 = {
            let mut s = v135;
            for i in 0..3 {
                s = (s + w[i] * v68).tanh();
            }
            s
        };
        assert!(v136.is_finite());
        let v137 = v136 - v68 * 0.125;
        let (v138, _) = (v137.sin() * 0.5 + v69 * 0.25, v137);
        let v139: f64 = v138 * v69.tanh() + 0.01 * y;
        let v140 = v139 * v70 * 0.5 + x;
        let v141 = v140.sin() - y * 0.5;
        let v142 = (v141 + v71) * 0.25;
        let v143 = v142.tanh() * y + v71 * 0.5;
        let mut v144 = v143 * 0.5;
        v144 += w[0] * v72.cos() * 0.1;
        let v145 = mix(&[v144, v72]);
        let v146 = {
            let mut s = v145;
            for i in 0..3 {
                s = (s + w[i] * v73).tanh();
            }
            s
        };
        assert!(v146.is_finite());
        let v147 = v146 - v73 * 0.125;
        let (v148, _) = (v147.sin() * 0.5 + v74 * 0.25, v147);
        let v149: f64 = v148 * v74.tanh() + 0.01 * y;
        let v150 = v149 * v75 * 0.5 + x;
        let v151 = v150.sin() - y * 0.5;
        let v152 = (v151 + v76) * 0.25;
        let v153 = v152.tanh() * y + v76 * 0.5;
        let mut v154 = v153 * 0.5;
        v154 += w[1] * v77.cos() * 0.1;
        let v155 = mix(&[v154, v77]);
        let v156 = {
            let mut s = v155;
            for i in 0..3 {
                s = (s + w[i] * v78).tanh();
            }
            s
        };
        assert!(v156.is_finite());
        let v157 = v156 - v78 * 0.125;
        let (v158, _) = (v157.sin() * 0.5 + v79 * 0.25, v157);
        let v159: f64 = v158 * v79.tanh() + 0.01 * y;
        let v160 = v159 * v80 * 0.5 + x;
        let v161 = v160.sin() - y * 0.5;
        let v162 = (v161 + v81) * 0.25;
        let v163 = v162.tanh() * y + v81 * 0.5;
        let mut v164 = v163 * 0.5;
        v164 += w[2] * v82.cos() * 0.1;
        let v165 = mix(&[v164, v82]);
        let v166 = {
            let mut s = v165;
            for i in 0..3 {
                s = (s + w[i] * v83).tanh();
            }
            s
        };
        assert!(v166.is_finite());
        let v167 = v166 - v83 * 0.125;
        let (v168, _) = (v167.sin() * 0.5 + v84 * 0.25, v167);
        let v169: f64 = v168 * v84.tanh() + 0.01 * y;
        let v170 = v169 * v85 * 0.5 + x;
        let v171 = v170.sin() - y * 0.5;
        let v172 = (v171 + v86) * 0.25;
        let v173 = v172.tanh() * y + v86 * 0.5;
        let mut v174 = v173 * 0.5;
        v174 += w[0] * v87.cos() * 0.1;
        let v175 = mix(&[v174, v87]);
        let v176 = {
            let mut s = v175;
            for i in 0..3 {
                s = (s + w[i] * v88).tanh();
            }
            s
        };
        assert!(v176.is_finite());
        let v177 = v176 - v88 * 0.125;
        let (v178, _) = (v177.sin() * 0.5 + v89 * 0.25, v177);
        let v179: f64 = v178 * v89.tanh() + 0.01 * y;
        let v180 = v179 * v90 * 0.5 + x;
        let v181 = v180.sin() - y * 0.5;
        let v182 = (v181 + v91) * 0.25;
        let v183 = v182.tanh() * y + v91 * 0.5;
        let mut v184 = v183 * 0.5;
        v184 += w[1] * v92.cos() * 0.1;
        let v185 = mix(&[v184, v92]);
        let v186 = {
            let mut s = v185;
            for i in 0..3 {
                s = (s + w[i] * v93).tanh();
            }
            s
        };
        assert!(v186.is_finite());
        let v187 = v186 - v93 * 0.125;
        let (v188, _) = (v187.sin() * 0.5 + v94 * 0.25, v187);
        let v189: f64 = v188 * v94.tanh() + 0.01 * y;
        let v190 = v189 * v95 * 0.5 + x;
        let v191 = v190.sin() - y * 0.5;
        let v192 = (v191 + v96) * 0.25;
        let v193 = v192.tanh() * y + v96 * 0.5;
        let mut v194 = v193 * 0.5;
        v194 += w[2] * v97.cos() * 0.1;
        let v195 = mix(&[v194, v97]);
        let v196 = {
            let mut s = v195;
            for i in 0..3 {
                s = (s + w[i] * v98).tanh();
            }
            s
        };
        assert!(v196.is_finite());
        let v197 = v196 - v98 * 0.125;
        let (v198, _) = (v197.sin() * 0.5 + v99 * 0.25, v197);
        let v199: f64 = v198 * v99.tanh() + 0.01 * y;
        let v200 = v199 * v100 * 0.5 + x;
        let v201 = v200.sin() - y * 0.5;
        let v202 = (v201 + v101) * 0.25;
        let v203 = v202.tanh() * y + v101 * 0.5;
        let mut v204 = v203 * 0.5;
        v204 += w[0] * v102.cos() * 0.1;
        let v205 = mix(&[v204, v102]);
        let v206 = {
            let mut s = v205;
            for i in 0..3 {
                s = (s + w[i] * v103).tanh();
            }
            s
        };
        assert!(v206.is_finite());
        let v207 = v206 - v103 * 0.125;
        let (v208, _) = (v207.sin() * 0.5 + v104 * 0.25, v207);
        let v209: f64 = v208 * v104.tanh() + 0.01 * y;
        let v210 = v209 * v105 * 0.5 + x;
        let v211 = v210.sin() - y * 0.5;
        let v212 = (v211 + v106) * 0.25;
        let v213 = v212.tanh() * y + v106 * 0.5;
        let mut v214 = v213 * 0.5;
        v214 += w[1] * v107.cos() * 0.1;
        let v215 = mix(&[v214, v107]);
        let v216 = {
            let mut s = v215;
            for i in 0..3 {
                s = (s + w[i] * v108).tanh();
            }
            s
        };
        assert!(v216.is_finite());
        let v217 = v216 - v108 * 0.125;
        let (v218, _) = (v217.sin() * 0.5 + v109 * 0.25, v217);
        let v219: f64 = v218 * v109.tanh() + 0.01 * y;
        let v220 = v219 * v110 * 0.5 + x;
        let v221 = v220.sin() - y * 0.5;
        let v222 = (v221 + v111) * 0.25;
        let v223 = v222.tanh() * y + v111 * 0.5;
        let mut v224 = v223 * 0.5;
        v224 += w[2] * v112.cos() * 0.1;
        let v225 = mix(&[v224, v112]);
        let v226 = {
            let mut s = v225;
            for i in 0..3 {
                s = (s + w[i] * v113).tanh();
            }
            s
        };
        assert!(v226.is_finite());
        let v227 = v226 - v113 * 0.125;
        let (v228, _) = (v227.sin() * 0.5 + v114 * 0.25, v227);
        let v229: f64 = v228 * v114.tanh() + 0.01 * y;
        let v230 = v229 * v115 * 0.5 + x;
        let v231 = v230.sin() - y * 0.5;
        let v232 = (v231 + v116) * 0.25;
        let v233 = v232.tanh() * y + v116 * 0.5;
        let mut v234 = v233 * 0.5;
        v234 += w[0] * v117.cos() * 0.1;
        let v235 = mix(&[v234, v117]);
        let v236 = {
            let mut s = v235;
            for i in 0..3 {
                s = (s + w[i] * v118).tanh();
            }
            s
        };
        assert!(v236.is_finite());
        let v237 = v236 - v118 * 0.125;
        let (v238, _) = (v237.sin() * 0.5 + v119 * 0.25, v237);
        let v239: f64 = v238 * v119.tanh() + 0.01 * y;
        let v240 = v239 * v120 * 0.5 + x;
        let v241 = v240.sin() - y * 0.5;
        let v242 = (v241 + v121) * 0.25;
        let v243 = v242.tanh() * y + v121 * 0.5;
        let mut v244 = v243 * 0.5;
        v244 += w[1] * v122.cos() * 0.1;
        let v245 = mix(&[v244, v122]);
        let v246 = {
            let mut s = v245;
            for i in 0..3 {
                s = (s + w[i] * v123).tanh();
            }
            s
        };
        assert!(v246.is_finite());
        let v247 = v246 - v123 * 0.125;
        let (v248, _) = (v247.sin() * 0.5 + v124 * 0.25, v247);
        let v249: f64 = v248 * v124.tanh() + 0.01 * y;
        let v250 = v249 * v125 * 0.5 + x;
        let v251 = v250.sin() - y * 0.5;
        let v252 = (v251 + v126) * 0.25;
        let v253 = v252.tanh() * y + v126 * 0.5;
        let mut v254 = v253 * 0.5;
        v254 += w[2] * v127.cos() * 0.1;
        let v255 = mix(&[v254, v127]);
        let v256 = {
            let mut s = v255;
            for i in 0..3 {
                s = (s + w[i] * v128).tanh();
            }
            s
        };
        assert!(v256.is_finite());
        let v257 = v256 - v128 * 0.125;
        let (v258, _) = (v257.sin() * 0.5 + v129 * 0.25, v257);
        let v259: f64 = v258 * v129.tanh() + 0.01 * y;
        let v260 = v259 * v130 * 0.5 + x;
        let v261 = v260.sin() - y * 0.5;
        let v262 = (v261 + v131) * 0.25;
        let v263 = v262.tanh() * y + v131 * 0.5;
        let mut v264 = v263 * 0.5;
        v264 += w[0] * v132.cos() * 0.1;
        let v265 = mix(&[v264, v132]);
        let v266 = {
            let mut s = v265;
            for i in 0..3 {
                s = (s + w[i] * v133).tanh();
            }
            s
        };
        assert!(v266.is_finite());
        let v267 = v266 - v133 * 0.125;
        let (v268, _) = (v267.sin() * 0.5 + v134 * 0.25, v267);
        let v269: f64 = v268 * v134.tanh() + 0.01 * y;
        let v270 = v269 * v135 * 0.5 + x;
        let v271 = v270.sin() - y * 0.5;
        let v272 = (v271 + v136) * 0.25;
        let v273 = v272.tanh() * y + v136 * 0.5;
        let mut v274 = v273 * 0.5;
        v274 += w[1] * v137.cos() * 0.1;
        let v275 = mix(&[v274, v137]);
        let v276 = {
            let mut s = v275;
            for i in 0..3 {
                s = (s + w[i] * v138).tanh();
            }
            s
        };
        assert!(v276.is_finite());
        let v277 = v276 - v138 * 0.125;
        let (v278, _) = (v277.sin() * 0.5 + v139 * 0.25, v277);
        let v279: f64 = v278 * v139.tanh() + 0.01 * y;
        let v280 = v279 * v140 * 0.5 + x;
        let v281 = v280.sin() - y * 0.5;
        let v282 = (v281 + v141) * 0.25;
        let v283 = v282.tanh() * y + v141 * 0.5;
        let mut v284 = v283 * 0.5;
        v284 += w[2] * v142.cos() * 0.1;
        let v285 = mix(&[v284, v142]);
        let v286 = {
            let mut s = v285;
            for i in 0..3 {
                s = (s + w[i] * v143).tanh();
            }
            s
        };
        assert!(v286.is_finite());
        let v287 = v286 - v143 * 0.125;
        let (v288, _) = (v287.sin() * 0.5 + v144 * 0.25, v287);
        let v289: f64 = v288 * v144.tanh() + 0.01 * y;
        let v290 = v289 * v145 * 0.5 + x;
        let v291 = v290.sin() - y * 0.5;
        let v292 = (v291 + v146) * 0.25;
        let v293 = v292.tanh() * y + v146 * 0.5;
        let mut v294 = v293 * 0.5;
        v294 += w[0] * v147.cos() * 0.1;
        let v295 = mix(&[v294, v147]);
        let v296 = {
            let mut s = v295;
            for i in 0..3 {
                s = (s + w[i] * v148).tanh();
            }
            s
        };
        assert!(v296.is_finite());
        let v297 = v296 - v148 * 0.125;
        let (v298, _) = (v297.sin() * 0.5 + v149 * 0.25, v297);
        let v299: f64 = v298 * v149.tanh() + 0.01 * y;
        let v300 = v299 * v150 * 0.5 + x;
        let v301 = v300.sin() - y * 0.5;
        let v302 = (v301 + v151) * 0.25;
        let v303 = v302.tanh() * y + v151 * 0.5;
        let mut v304 = v303 * 0.5;
        v304 += w[1] * v152.cos() * 0.1;
        let v305 = mix(&[v304, v152]);
        let v306 = {
            let mut s = v305;
            for i in 0..3 {
                s = (s + w[i] * v153).tanh();
            }
            s
        };
        assert!(v306.is_finite());
        let v307 = v306 - v153 * 0.125;
        let (v308, _) = (v307.sin() * 0.5 + v154 * 0.25, v307);
        let v309: f64 = v308 * v154.tanh() + 0.01 * y;
        let v310 = v309 * v155 * 0.5 + x;
        let v311 = v310.sin() - y * 0.5;
        let v312 = (v311 + v156) * 0.25;
        let v313 = v312.tanh() * y + v156 * 0.5;
        let mut v314 = v313 * 0.5;
        v314 += w[2] * v157.cos() * 0.1;
        let v315 = mix(&[v314, v157]);
        let v316 = {
            let mut s = v315;
            for i in 0..3 {
                s = (s + w[i] * v158).tanh();
            }
            s
        };
        assert!(v316.is_finite());
        let v317 = v316 - v158 * 0.125;
        let (v318, _) = (v317.sin() * 0.5 + v159 * 0.25, v317);
        let v319: f64 = v318 * v159.tanh() + 0.01 * y;
        let v320 = v319 * v160 * 0.5 + x;
        let v321 = v320.sin() - y * 0.5;
        let v322 = (v321 + v161) * 0.25;
        let v323 = v322.tanh() * y + v161 * 0.5;
        let mut v324 = v323 * 0.5;
        v324 += w[0] * v162.cos() * 0.1;
        let v325 = mix(&[v324, v162]);
        let v326 = {
            let mut s = v325;
            for i in 0..3 {
                s = (s + w[i] * v163).tanh();
            }
            s
        };
        assert!(v326.is_finite());
        let v327 = v326 - v163 * 0.125;
        let (v328, _) = (v327.sin() * 0.5 + v164 * 0.25, v327);
        let v329: f64 = v328 * v164.tanh() + 0.01 * y;
        let v330 = v329 * v165 * 0.5 + x;
        let v331 = v330.sin() - y * 0.5;
        let v332 = (v331 + v166) * 0.25;
        let v333 = v332.tanh() * y + v166 * 0.5;
        let mut v334 = v333 * 0.5;
        v334 += w[1] * v167.cos() * 0.1;
        let v335 = mix(&[v334, v167]);
        let v336 = {
            let mut s = v335;
            for i in 0..3 {
                s = (s + w[i] * v168).tanh();
            }
            s
        };
        assert!(v336.is_finite());
        let v337 = v336 - v168 * 0.125;
        let (v338, _) = (v337.sin() * 0.5 + v169 * 0.25, v337);
        let v339: f64 = v338 * v169.tanh() + 0.01 * y;
        let v340 = v339 * v170 * 0.5 + x;
        let v341 = v340.sin() - y * 0.5;
        let v342 = (v341 + v171) * 0.25;
        let v343 = v342.tanh() * y + v171 * 0.5;
        let mut v344 = v343 * 0.5;
        v344 += w[2] * v172.cos() * 0.1;
        let v345 = mix(&[v344, v172]);
        let v346 = {
            let mut s = v345;
            for i in 0..3 {
                s = (s + w[i] * v173).tanh();
            }
            s
        };
        assert!(v346.is_finite());
        let v347 = v346 - v173 * 0.125;
        let (v348, _) = (v347.sin() * 0.5 + v174 * 0.25, v347);
        let v349: f64 = v348 * v174.tanh() + 0.01 * y;
        let v350 = v349 * v175 * 0.5 + x;
        let v351 = v350.sin() - y * 0.5;
        let v352 = (v351 + v176) * 0.25;
        let v353 = v352.tanh() * y + v176 * 0.5;
        let mut v354 = v353 * 0.5;
        v354 += w[0] * v177.cos() * 0.1;
        let v355 = mix(&[v354, v177]);
        let v356 = {
            let mut s = v355;
            for i in 0..3 {
                s = (s + w[i] * v178).tanh();
            }
            s
        };
        assert!(v356.is_finite());
        let v357 = v356 - v178 * 0.125;
        let (v358, _) = (v357.sin() * 0.5 + v179 * 0.25, v357);
        let v359: f64 = v358 * v179.tanh() + 0.01 * y;
        let v360 = v359 * v180 * 0.5 + x;
        let v361 = v360.sin() - y * 0.5;
        let v362 = (v361 + v181) * 0.25;
        let v363 = v362.tanh() * y + v181 * 0.5;
        let mut v364 = v363 * 0.5;
        v364 += w[1] * v182.cos() * 0.1;
        let v365 = mix(&[v364, v182]);
        let v366 = {
            let mut s = v365;
            for i in 0..3 {
                s = (s + w[i] * v183).tanh();
            }
            s
        };
        assert!(v366.is_finite());
        let v367 = v366 - v183 * 0.125;
        let (v368, _) = (v367.sin() * 0.5 + v184 * 0.25, v367);
        let v369: f64 = v368 * v184.tanh() + 0.01 * y;
        let v370 = v369 * v185 * 0.5 + x;
        let v371 = v370.sin() - y * 0.5;
        let v372 = (v371 + v186) * 0.25;
        let v373 = v372.tanh() * y + v186 * 0.5;
        let mut v374 = v373 * 0.5;
        v374 += w[2] * v187.cos() * 0.1;
        let v375 = mix(&[v374, v187]);
        let v376 = {
            let mut s = v375;
            for i in 0..3 {
                s = (s + w[i] * v188).tanh();
            }
            s
        };
        assert!(v376.is_finite());
        let v377 = v376 - v188 * 0.125;
        let (v378, _) = (v377.sin() * 0.5 + v189 * 0.25, v377);
        let v379: f64 = v378 * v189.tanh() + 0.01 * y;
        let v380 = v379 * v190 * 0.5 + x;
        let v381 = v380.sin() - y * 0.5;
        let v382 = (v381 + v191) * 0.25;
        let v383 = v382.tanh() * y + v191 * 0.5;
        let mut v384 = v383 * 0.5;
        v384 += w[0] * v192.cos() * 0.1;
        let v385 = mix(&[v384, v192]);
        let v386 = {
            let mut s = v385;
            for i in 0..3 {
                s = (s + w[i] * v193).tanh();
            }
            s
        };
        assert!(v386.is_finite());
        let v387 = v386 - v193 * 0.125;
        let (v388, _) = (v387.sin() * 0.5 + v194 * 0.25, v387);
        let v389: f64 = v388 * v194.tanh() + 0.01 * y;
        let v390 = v389 * v195 * 0.5 + x;
        let v391 = v390.sin() - y * 0.5;
        let v392 = (v391 + v196) * 0.25;
        let v393 = v392.tanh() * y + v196 * 0.5;
        let mut v394 = v393 * 0.5;
        v394 += w[1] * v197.cos() * 0.1;
        let v395 = mix(&[v394, v197]);
        let v396 = {
            let mut s = v395;
            for i in 0..3 {
                s = (s + w[i] * v198).tanh();
            }
            s
        };
        assert!(v396.is_finite());
        let v397 = v396 - v198 * 0.125;
        let (v398, _) = (v397.sin() * 0.5 + v199 * 0.25, v397);
        let v399: f64 = v398 * v199.tanh() + 0.01 * y;
        let v400 = v399 * v200 * 0.5 + x;
        let v401 = v400.sin() - y * 0.5;
        let v402 = (v401 + v201) * 0.25;
        let v403 = v402.tanh() * y + v201 * 0.5;
        let mut v404 = v403 * 0.5;
        v404 += w[2] * v202.cos() * 0.1;
        let v405 = mix(&[v404, v202]);
        let v406 = {
            let mut s = v405;
            for i in 0..3 {
                s = (s + w[i] * v203).tanh();
            }
            s
        };
        assert!(v406.is_finite());
        let v407 = v406 - v203 * 0.125;
        let (v408, _) = (v407.sin() * 0.5 + v204 * 0.25, v407);
        let v409: f64 = v408 * v204.tanh() + 0.01 * y;
        let v410 = v409 * v205 * 0.5 + x;
        let v411 = v410.sin() - y * 0.5;
        let v412 = (v411 + v206) * 0.25;
        let v413 = v412.tanh() * y + v206 * 0.5;
        let mut v414 = v413 * 0.5;
        v414 += w[0] * v207.cos() * 0.1;
        let v415 = mix(&[v414, v207]);
        let v416 = {
            let mut s = v415;
            for i in 0..3 {
                s = (s + w[i] * v208).tanh();
            }
            s
        };
        assert!(v416.is_finite());
        let v417 = v416 - v208 * 0.125;
        let (v418, _) = (v417.sin() * 0.5 + v209 * 0.25, v417);
        let v419: f64 = v418 * v209.tanh() + 0.01 * y;
        let v420 = v419 * v210 * 0.5 + x;
        let v421 = v420.sin() - y * 0.5;
        let v422 = (v421 + v211) * 0.25;
        let v423 = v422.tanh() * y + v211 * 0.5;
        let mut v424 = v423 * 0.5;
        v424 += w[1] * v212.cos() * 0.1;
        let v425 = mix(&[v424, v212]);
        let v426 = {
            let mut s = v425;
            for i in 0..3 {
                s = (s + w[i] * v213).tanh();
            }
            s
        };
        assert!(v426.is_finite());
        let v427 = v426 - v213 * 0.125;
        let (v428, _) = (v427.sin() * 0.5 + v214 * 0.25, v427);
        let v429: f64 = v428 * v214.tanh() + 0.01 * y;
        let v430 = v429 * v215 * 0.5 + x;
        let v431 = v430.sin() - y * 0.5;
        let v432 = (v431 + v216) * 0.25;
        let v433 = v432.tanh() * y + v216 * 0.5;
        let mut v434 = v433 * 0.5;
        v434 += w[2] * v217.cos() * 0.1;
        let v435 = mix(&[v434, v217]);
        let v436 = {
            let mut s = v435;
            for i in 0..3 {
                s = (s + w[i] * v218).tanh();
            }
            s
        };
        assert!(v436.is_finite());
        let v437 = v436 - v218 * 0.125;
        let (v438, _) = (v437.sin() * 0.5 + v219 * 0.25, v437);
        let v439: f64 = v438 * v219.tanh() + 0.01 * y;
        let v440 = v439 * v220 * 0.5 + x;
        let v441 = v440.sin() - y * 0.5;
        let v442 = (v441 + v221) * 0.25;
        let v443 = v442.tanh() * y + v221 * 0.5;
        let mut v444 = v443 * 0.5;
        v444 += w[0] * v222.cos() * 0.1;
        let v445 = mix(&[v444, v222]);
        let v446 = {
            let mut s = v445;
            for i in 0..3 {
                s = (s + w[i] * v223).tanh();
            }
            s
        };
        assert!(v446.is_finite());
        let v447 = v446 - v223 * 0.125;
        let (v448, _) = (v447.sin() * 0.5 + v224 * 0.25, v447);
        let v449: f64 = v448 * v224.tanh() + 0.01 * y;
        let v450 = v449 * v225 * 0.5 + x;
        let v451 = v450.sin() - y * 0.5;
        let v452 = (v451 + v226) * 0.25;
        let v453 = v452.tanh() * y + v226 * 0.5;
        let mut v454 = v453 * 0.5;
        v454 += w[1] * v227.cos() * 0.1;
        let v455 = mix(&[v454, v227]);
        let v456 = {
            let mut s = v455;
            for i in 0..3 {
                s = (s + w[i] * v228).tanh();
            }
            s
        };
        assert!(v456.is_finite());
        let v457 = v456 - v228 * 0.125;
        let (v458, _) = (v457.sin() * 0.5 + v229 * 0.25, v457);
        let v459: f64 = v458 * v229.tanh() + 0.01 * y;
        let v460 = v459 * v230 * 0.5 + x;
        let v461 = v460.sin() - y * 0.5;
        let v462 = (v461 + v231) * 0.25;
        let v463 = v462.tanh() * y + v231 * 0.5;
        let mut v464 = v463 * 0.5;
        v464 += w[2] * v232.cos() * 0.1;
        let v465 = mix(&[v464, v232]);
        let v466 = {
            let mut s = v465;
            for i in 0..3 {
                s = (s + w[i] * v233).tanh();
            }
            s
        };
        assert!(v466.is_finite());
        let v467 = v466 - v233 * 0.125;
        let (v468, _) = (v467.sin() * 0.5 + v234 * 0.25, v467);
        let v469: f64 = v468 * v234.tanh() + 0.01 * y;
        let v470 = v469 * v235 * 0.5 + x;
        let v471 = v470.sin() - y * 0.5;
        let v472 = (v471 + v236) * 0.25;
        let v473 = v472.tanh() * y + v236 * 0.5;
        let mut v474 = v473 * 0.5;
        v474 += w[0] * v237.cos() * 0.1;
        let v475 = mix(&[v474, v237]);
        let v476 = {
            let mut s = v475;
            for i in 0..3 {
                s = (s + w[i] * v238).tanh();
            }
            s
        };
        assert!(v476.is_finite());
        let v477 = v476 - v238 * 0.125;
        let (v478, _) = (v477.sin() * 0.5 + v239 * 0.25, v477);
        let v479: f64 = v478 * v239.tanh() + 0.01 * y;
        let v480 = v479 * v240 * 0.5 + x;
        let v481 = v480.sin() - y * 0.5;
        let v482 = (v481 + v241) * 0.25;
        let v483 = v482.tanh() * y + v241 * 0.5;
        let mut v484 = v483 * 0.5;
        v484 += w[1] * v242.cos() * 0.1;
        let v485 = mix(&[v484, v242]);
        let v486 = {
            let mut s = v485;
            for i in 0..3 {
                s = (s + w[i] * v243).tanh();
            }
            s
        };
        assert!(v486.is_finite());
        let v487 = v486 - v243 * 0.125;
        let (v488, _) = (v487.sin() * 0.5 + v244 * 0.25, v487);
        let v489: f64 = v488 * v244.tanh() + 0.01 * y;
        let v490 = v489 * v245 * 0.5 + x;
        let v491 = v490.sin() - y * 0.5;
        let v492 = (v491 + v246) * 0.25;
        let v493 = v492.tanh() * y + v246 * 0.5;
        let mut v494 = v493 * 0.5;
        v494 += w[2] * v247.cos() * 0.1;
        let v495 = mix(&[v494, v247]);
        let v496 = {
            let mut s = v495;
            for i in 0..3 {
                s = (s + w[i] * v248).tanh();
            }
            s
        };
        assert!(v496.is_finite());
        let v497 = v496 - v248 * 0.125;
        let (v498, _) = (v497.sin() * 0.5 + v249 * 0.25, v497);
        let v499: f64 = v498 * v249.tanh() + 0.01 * y;
        let v500 = v499 * v250 * 0.5 + x;
        let v501 = v500.sin() - y * 0.5;
        let v502 = (v501 + v251) * 0.25;
        let v503 = v502.tanh() * y + v251 * 0.5;
        let mut v504 = v503 * 0.5;
        v504 += w[0] * v252.cos() * 0.1;
        let v505 = mix(&[v504, v252]);
        let v506 = {
            let mut s = v505;
            for i in 0..3 {
                s = (s + w[i] * v253).tanh();
            }
            s
        };
        assert!(v506.is_finite());
        let v507 = v506 - v253 * 0.125;
        let (v508, _) = (v507.sin() * 0.5 + v254 * 0.25, v507);
        let v509: f64 = v508 * v254.tanh() + 0.01 * y;
        let v510 = v509 * v255 * 0.5 + x;
        let v511 = v510.sin() - y * 0.5;
        let v512 = (v511 + v256) * 0.25;
        let v513 = v512.tanh() * y + v256 * 0.5;
        let mut v514 = v513 * 0.5;
        v514 += w[1] * v257.cos() * 0.1;
        let v515 = mix(&[v514, v257]);
        let v516 = {
            let mut s = v515;
            for i in 0..3 {
                s = (s + w[i] * v258).tanh();
            }
            s
        };
        assert!(v516.is_finite());
        let v517 = v516 - v258 * 0.125;
        let (v518, _) = (v517.sin() * 0.5 + v259 * 0.25, v517);
        let v519: f64 = v518 * v259.tanh() + 0.01 * y;
        let v520 = v519 * v260 * 0.5 + x;
        let v521 = v520.sin() - y * 0.5;
        let v522 = (v521 + v261) * 0.25;
        let v523 = v522.tanh() * y + v261 * 0.5;
        let mut v524 = v523 * 0.5;
        v524 += w[2] * v262.cos() * 0.1;
        let v525 = mix(&[v524, v262]);
        let v526 = {
            let mut s = v525;
            for i in 0..3 {
                s = (s + w[i] * v263).tanh();
            }
            s
        };
        assert!(v526.is_finite());
        let v527 = v526 - v263 * 0.125;
        let (v528, _) = (v527.sin() * 0.5 + v264 * 0.25, v527);
        let v529: f64 = v528 * v264.tanh() + 0.01 * y;
        let v530 = v529 * v265 * 0.5 + x;
        let v531 = v530.sin() - y * 0.5;
        let v532 = (v531 + v266) * 0.25;
        let v533 = v532.tanh() * y + v266 * 0.5;
        let mut v534 = v533 * 0.5;
        v534 += w[0] * v267.cos() * 0.1;
        let v535 = mix(&[v534, v267]);
        let v536 = {
            let mut s = v535;
            for i in 0..3 {
                s = (s + w[i] * v268).tanh();
            }
            s
        };
        assert!(v536.is_finite());
        let v537 = v536 - v268 * 0.125;
        let (v538, _) = (v537.sin() * 0.5 + v269 * 0.25, v537);
        let v539: f64 = v538 * v269.tanh() + 0.01 * y;
        let v540 = v539 * v270 * 0.5 + x;
        let v541 = v540.sin() - y * 0.5;
        let v542 = (v541 + v271) * 0.25;
        let v543 = v542.tanh() * y + v271 * 0.5;
        let mut v544 = v543 * 0.5;
        v544 += w[1] * v272.cos() * 0.1;
        let v545 = mix(&[v544, v272]);
        let v546 = {
            let mut s = v545;
            for i in 0..3 {
                s = (s + w[i] * v273).tanh();
            }
            s
        };
        assert!(v546.is_finite());
        let v547 = v546 - v273 * 0.125;
        let (v548, _) = (v547.sin() * 0.5 + v274 * 0.25, v547);
        let v549: f64 = v548 * v274.tanh() + 0.01 * y;
        let v550 = v549 * v275 * 0.5 + x;
        let v551 = v550.sin() - y * 0.5;
        let v552 = (v551 + v276) * 0.25;
        let v553 = v552.tanh() * y + v276 * 0.5;
        let mut v554 = v553 * 0.5;
        v554 += w[2] * v277.cos() * 0.1;
        let v555 = mix(&[v554, v277]);
        let v556 = {
            let mut s = v555;
            for i in 0..3 {
                s = (s + w[i] * v278).tanh();
            }
            s
        };
        assert!(v556.is_finite());
        let v557 = v556 - v278 * 0.125;
        let (v558, _) = (v557.sin() * 0.5 + v279 * 0.25, v557);
        let v559: f64 = v558 * v279.tanh() + 0.01 * y;
        let v560 = v559 * v280 * 0.5 + x;
        let v561 = v560.sin() - y * 0.5;
        let v562 = (v561 + v281) * 0.25;
        let v563 = v562.tanh() * y + v281 * 0.5;
        let mut v564 = v563 * 0.5;
        v564 += w[0] * v282.cos() * 0.1;
        let v565 = mix(&[v564, v282]);
        let v566 = {
            let mut s = v565;
            for i in 0..3 {
                s = (s + w[i] * v283).tanh();
            }
            s
        };
        assert!(v566.is_finite());
        let v567 = v566 - v283 * 0.125;
        let (v568, _) = (v567.sin() * 0.5 + v284 * 0.25, v567);
        let v569: f64 = v568 * v284.tanh() + 0.01 * y;
        let v570 = v569 * v285 * 0.5 + x;
        let v571 = v570.sin() - y * 0.5;
        let v572 = (v571 + v286) * 0.25;
        let v573 = v572.tanh() * y + v286 * 0.5;
        let mut v574 = v573 * 0.5;
        v574 += w[1] * v287.cos() * 0.1;
        let v575 = mix(&[v574, v287]);
        let v576 = {
            let mut s = v575;
            for i in 0..3 {
                s = (s + w[i] * v288).tanh();
            }
            s
        };
        assert!(v576.is_finite());
        let v577 = v576 - v288 * 0.125;
        let (v578, _) = (v577.sin() * 0.5 + v289 * 0.25, v577);
        let v579: f64 = v578 * v289.tanh() + 0.01 * y;
        let v580 = v579 * v290 * 0.5 + x;
        let v581 = v580.sin() - y * 0.5;
        let v582 = (v581 + v291) * 0.25;
        let v583 = v582.tanh() * y + v291 * 0.5;
        let mut v584 = v583 * 0.5;
        v584 += w[2] * v292.cos() * 0.1;
        let v585 = mix(&[v584, v292]);
        let v586 = {
            let mut s = v585;
            for i in 0..3 {
                s = (s + w[i] * v293).tanh();
            }
            s
        };
        assert!(v586.is_finite());
        let v587 = v586 - v293 * 0.125;
        let (v588, _) = (v587.sin() * 0.5 + v294 * 0.25, v587);
        let v589: f64 = v588 * v294.tanh() + 0.01 * y;
        let v590 = v589 * v295 * 0.5 + x;
        let v591 = v590.sin() - y * 0.5;
        let v592 = (v591 + v296) * 0.25;
        let v593 = v592.tanh() * y + v296 * 0.5;
        let mut v594 = v593 * 0.5;
        v594 += w[0] * v297.cos() * 0.1;
        let v595 = mix(&[v594, v297]);
        let v596 = {
            let mut s = v595;
            for i in 0..3 {
                s = (s + w[i] * v298).tanh();
            }
            s
        };
        assert!(v596.is_finite());
        let v597 = v596 - v298 * 0.125;
        let (v598, _) = (v597.sin() * 0.5 + v299 * 0.25, v597);
        let v599: f64 = v598 * v299.tanh() + 0.01 * y;
        let v600 = v599 * v300 * 0.5 + x;
        let v601 = v600.sin() - y * 0.5;
        let v602 = (v601 + v301) * 0.25;
        let v603 = v602.tanh() * y + v301 * 0.5;
        let mut v604 = v603 * 0.5;
        v604 += w[1] * v302.cos() * 0.1;
        let v605 = mix(&[v604, v302]);
        let v606 = {
            let mut s = v605;
            for i in 0..3 {
                s = (s + w[i] * v303).tanh();
            }
            s
        };
        assert!(v606.is_finite());
        let v607 = v606 - v303 * 0.125;
        let (v608, _) = (v607.sin() * 0.5 + v304 * 0.25, v607);
        let v609: f64 = v608 * v304.tanh() + 0.01 * y;
        let v610 = v609 * v305 * 0.5 + x;
        let v611 = v610.sin() - y * 0.5;
        let v612 = (v611 + v306) * 0.25;
        let v613 = v612.tanh() * y + v306 * 0.5;
        let mut v614 = v613 * 0.5;
        v614 += w[2] * v307.cos() * 0.1;
        let v615 = mix(&[v614, v307]);
        let v616 = {
            let mut s = v615;
            for i in 0..3 {
                s = (s + w[i] * v308).tanh();
            }
            s
        };
        assert!(v616.is_finite());
        let v617 = v616 - v308 * 0.125;
        let (v618, _) = (v617.sin() * 0.5 + v309 * 0.25, v617);
        let v619: f64 = v618 * v309.tanh() + 0.01 * y;
        let v620 = v619 * v310 * 0.5 + x;
        let v621 = v620.sin() - y * 0.5;
        let v622 = (v621 + v311) * 0.25;
        let v623 = v622.tanh() * y + v311 * 0.5;
        let mut v624 = v623 * 0.5;
        v624 += w[0] * v312.cos() * 0.1;
        let v625 = mix(&[v624, v312]);
        let v626 = {
            let mut s = v625;
            for i in 0..3 {
                s = (s + w[i] * v313).tanh();
            }
            s
        };
        assert!(v626.is_finite());
        let v627 = v626 - v313 * 0.125;
        let (v628, _) = (v627.sin() * 0.5 + v314 * 0.25, v627);
        let v629: f64 = v628 * v314.tanh() + 0.01 * y;
        let v630 = v629 * v315 * 0.5 + x;
        let v631 = v630.sin() - y * 0.5;
        let v632 = (v631 + v316) * 0.25;
        let v633 = v632.tanh() * y + v316 * 0.5;
        let mut v634 = v633 * 0.5;
        v634 += w[1] * v317.cos() * 0.1;
        let v635 = mix(&[v634, v317]);
        let v636 = {
            let mut s = v635;
            for i in 0..3 {
                s = (s + w[i] * v318).tanh();
            }
            s
        };
        assert!(v636.is_finite());
        let v637 = v636 - v318 * 0.125;
        let (v638, _) = (v637.sin() * 0.5 + v319 * 0.25, v637);
        let v639: f64 = v638 * v319.tanh() + 0.01 * y;
        let v640 = v639 * v320 * 0.5 + x;
        let v641 = v640.sin() - y * 0.5;
        let v642 = (v641 + v321) * 0.25;
        let v643 = v642.tanh() * y + v321 * 0.5;
        let mut v644 = v643 * 0.5;
        v644 += w[2] * v322.cos() * 0.1;
        let v645 = mix(&[v644, v322]);
        let v646 = {
            let mut s = v645;
            for i in 0..3 {
                s = (s + w[i] * v323).tanh();
            }
            s
        };
        assert!(v646.is_finite());
        let v647 = v646 - v323 * 0.125;
        let (v648, _) = (v647.sin() * 0.5 + v324 * 0.25, v647);
        let v649: f64 = v648 * v324.tanh() + 0.01 * y;
        let v650 = v649 * v325 * 0.5 + x;
        let v651 = v650.sin() - y * 0.5;
        let v652 = (v651 + v326) * 0.25;
        let v653 = v652.tanh() * y + v326 * 0.5;
        let mut v654 = v653 * 0.5;
        v654 += w[0] * v327.cos() * 0.1;
        let v655 = mix(&[v654, v327]);
        let v656 = {
            let mut s = v655;
            for i in 0..3 {
                s = (s + w[i] * v328).tanh();
            }
            s
        };
        assert!(v656.is_finite());
        let v657 = v656 - v328 * 0.125;
        let (v658, _) = (v657.sin() * 0.5 + v329 * 0.25, v657);
        let v659: f64 = v658 * v329.tanh() + 0.01 * y;
        let v660 = v659 * v330 * 0.5 + x;
        let v661 = v660.sin() - y * 0.5;
        let v662 = (v661 + v331) * 0.25;
        let v663 = v662.tanh() * y + v331 * 0.5;
        let mut v664 = v663 * 0.5;
        v664 += w[1] * v332.cos() * 0.1;
        let v665 = mix(&[v664, v332]);
        let v666 = {
            let mut s = v665;
            for i in 0..3 {
                s = (s + w[i] * v333).tanh();
            }
            s
        };
        assert!(v666.is_finite());
        let v667 = v666 - v333 * 0.125;
        let (v668, _) = (v667.sin() * 0.5 + v334 * 0.25, v667);
        let v669: f64 = v668 * v334.tanh() + 0.01 * y;
        let v670 = v669 * v335 * 0.5 + x;
        let v671 = v670.sin() - y * 0.5;
        let v672 = (v671 + v336) * 0.25;
        let v673 = v672.tanh() * y + v336 * 0.5;
        let mut v674 = v673 * 0.5;
        v674 += w[2] * v337.cos() * 0.1;
        let v675 = mix(&[v674, v337]);
        let v676 = {
            let mut s = v675;
            for i in 0..3 {
                s = (s + w[i] * v338).tanh();
            }
            s
        };
        assert!(v676.is_finite());
        let v677 = v676 - v338 * 0.125;
        let (v678, _) = (v677.sin() * 0.5 + v339 * 0.25, v677);
        let v679: f64 = v678 * v339.tanh() + 0.01 * y;
        let v680 = v679 * v340 * 0.5 + x;
        let v681 = v680.sin() - y * 0.5;
        let v682 = (v681 + v341) * 0.25;
        let v683 = v682.tanh() * y + v341 * 0.5;
        let mut v684 = v683 * 0.5;
        v684 += w[0] * v342.cos() * 0.1;
        let v685 = mix(&[v684, v342]);
        let v686 = {
            let mut s = v685;
            for i in 0..3 {
                s = (s + w[i] * v343).tanh();
            }
            s
        };
        assert!(v686.is_finite());
        let v687 = v686 - v343 * 0.125;
        let (v688, _) = (v687.sin() * 0.5 + v344 * 0.25, v687);
        let v689: f64 = v688 * v344.tanh() + 0.01 * y;
        let v690 = v689 * v345 * 0.5 + x;
        let v691 = v690.sin() - y * 0.5;
        let v692 = (v691 + v346) * 0.25;
        let v693 = v692.tanh() * y + v346 * 0.5;
        let mut v694 = v693 * 0.5;
        v694 += w[1] * v347.cos() * 0.1;
        let v695 = mix(&[v694, v347]);
        let v696 = {
            let mut s = v695;
            for i in 0..3 {
                s = (s + w[i] * v348).tanh();
            }
            s
        };
        assert!(v696.is_finite());
        let v697 = v696 - v348 * 0.125;
        let (v698, _) = (v697.sin() * 0.5 + v349 * 0.25, v697);
        let v699: f64 = v698 * v349.tanh() + 0.01 * y;
        let v700 = v699 * v350 * 0.5 + x;
        let v701 = v700.sin() - y * 0.5;
        let v702 = (v701 + v351) * 0.25;
        let v703 = v702.tanh() * y + v351 * 0.5;
        let mut v704 = v703 * 0.5;
        v704 += w[2] * v352.cos() * 0.1;
        let v705 = mix(&[v704, v352]);
        let v706 = {
            let mut s = v705;
            for i in 0..3 {
                s = (s + w[i] * v353).tanh();
            }
            s
        };
        assert!(v706.is_finite());
        let v707 = v706 - v353 * 0.125;
        let (v708, _) = (v707.sin() * 0.5 + v354 * 0.25, v707);
        let v709: f64 = v708 * v354.tanh() + 0.01 * y;
        let v710 = v709 * v355 * 0.5 + x;
        let v711 = v710.sin() - y * 0.5;
        let v712 = (v711 + v356) * 0.25;
        let v713 = v712.tanh() * y + v356 * 0.5;
        let mut v714 = v713 * 0.5;
        v714 += w[0] * v357.cos() * 0.1;
        let v715 = mix(&[v714, v357]);
        let v716 = {
            let mut s = v715;
            for i in 0..3 {
                s = (s + w[i] * v358).tanh();
            }
            s
        };
        assert!(v716.is_finite());
        let v717 = v716 - v358 * 0.125;
        let (v718, _) = (v717.sin() * 0.5 + v359 * 0.25, v717);
        let v719: f64 = v718 * v359.tanh() + 0.01 * y;
        let v720 = v719 * v360 * 0.5 + x;
        let v721 = v720.sin() - y * 0.5;
        let v722 = (v721 + v361) * 0.25;
        let v723 = v722.tanh() * y + v361 * 0.5;
        let mut v724 = v723 * 0.5;
        v724 += w[1] * v362.cos() * 0.1;
        let v725 = mix(&[v724, v362]);
        let v726 = {
            let mut s = v725;
            for i in 0..3 {
                s = (s + w[i] * v363).tanh();
            }
            s
        };
        assert!(v726.is_finite());
        let v727 = v726 - v363 * 0.125;
        let (v728, _) = (v727.sin() * 0.5 + v364 * 0.25, v727);
        let v729: f64 = v728 * v364.tanh() + 0.01 * y;
        let v730 = v729 * v365 * 0.5 + x;
        let v731 = v730.sin() - y * 0.5;
        let v732 = (v731 + v366) * 0.25;
        let v733 = v732.tanh() * y + v366 * 0.5;
        let mut v734 = v733 * 0.5;
        v734 += w[2] * v367.cos() * 0.1;
        let v735 = mix(&[v734, v367]);
        let v736 = {
            let mut s = v735;
            for i in 0..3 {
                s = (s + w[i] * v368).tanh();
            }
            s
        };
        assert!(v736.is_finite());
        let v737 = v736 - v368 * 0.125;
        let (v738, _) = (v737.sin() * 0.5 + v369 * 0.25, v737);
        let v739: f64 = v738 * v369.tanh() + 0.01 * y;
        let v740 = v739 * v370 * 0.5 + x;
        let v741 = v740.sin() - y * 0.5;
        let v742 = (v741 + v371) * 0.25;
        let v743 = v742.tanh() * y + v371 * 0.5;
        let mut v744 = v743 * 0.5;
        v744 += w[0] * v372.cos() * 0.1;
        let v745 = mix(&[v744, v372]);
        let v746 = {
            let mut s = v745;
            for i in 0..3 {
                s = (s + w[i] * v373).tanh();
            }
            s
        };
        assert!(v746.is_finite());
        let v747 = v746 - v373 * 0.125;
        let (v748, _) = (v747.sin() * 0.5 + v374 * 0.25, v747);
        let v749: f64 = v748 * v374.tanh() + 0.01 * y;
        let v750 = v749 * v375 * 0.5 + x;
        let v751 = v750.sin() - y * 0.5;
        let v752 = (v751 + v376) * 0.25;
        let v753 = v752.tanh() * y + v376 * 0.5;
        let mut v754 = v753 * 0.5;
        v754 += w[1] * v377.cos() * 0.1;
        let v755 = mix(&[v754, v377]);
        let v756 = {
            let mut s = v755;
            for i in 0..3 {
                s = (s + w[i] * v378).tanh();
            }
            s
        };
        assert!(v756.is_finite());
        let v757 = v756 - v378 * 0.125;
        let (v758, _) = (v757.sin() * 0.5 + v379 * 0.25, v757);
        let v759: f64 = v758 * v379.tanh() + 0.01 * y;
        let v760 = v759 * v380 * 0.5 + x;
        let v761 = v760.sin() - y * 0.5;
        let v762 = (v761 + v381) * 0.25;
        let v763 = v762.tanh() * y + v381 * 0.5;
        let mut v764 = v763 * 0.5;
        v764 += w[2] * v382.cos() * 0.1;
        let v765 = mix(&[v764, v382]);
        let v766 = {
            let mut s = v765;
            for i in 0..3 {
                s = (s + w[i] * v383).tanh();
            }
            s
        };
        assert!(v766.is_finite());
        let v767 = v766 - v383 * 0.125;
        let (v768, _) = (v767.sin() * 0.5 + v384 * 0.25, v767);
        let v769: f64 = v768 * v384.tanh() + 0.01 * y;
        let v770 = v769 * v385 * 0.5 + x;
        let v771 = v770.sin() - y * 0.5;
        let v772 = (v771 + v386) * 0.25;
        let v773 = v772.tanh() * y + v386 * 0.5;
        let mut v774 = v773 * 0.5;
        v774 += w[0] * v387.cos() * 0.1;
        let v775 = mix(&[v774, v387]);
        let v776 = {
            let mut s = v775;
            for i in 0..3 {
                s = (s + w[i] * v388).tanh();
            }
            s
        };
        assert!(v776.is_finite());
        let v777 = v776 - v388 * 0.125;
        let (v778, _) = (v777.sin() * 0.5 + v389 * 0.25, v777);
        let v779: f64 = v778 * v389.tanh() + 0.01 * y;
        let v780 = v779 * v390 * 0.5 + x;
        let v781 = v780.sin() - y * 0.5;
        let v782 = (v781 + v391) * 0.25;
        let v783 = v782.tanh() * y + v391 * 0.5;
        let mut v784 = v783 * 0.5;
        v784 += w[1] * v392.cos() * 0.1;
        let v785 = mix(&[v784, v392]);
        let v786 = {
            let mut s = v785;
            for i in 0..3 {
                s = (s + w[i] * v393).tanh();
            }
            s
        };
        assert!(v786.is_finite());
        let v787 = v786 - v393 * 0.125;
        let (v788, _) = (v787.sin() * 0.5 + v394 * 0.25, v787);
        let v789: f64 = v788 * v394.tanh() + 0.01 * y;
        let v790 = v789 * v395 * 0.5 + x;
        let v791 = v790.sin() - y * 0.5;
        let v792 = (v791 + v396) * 0.25;
        let v793 = v792.tanh() * y + v396 * 0.5;
        let mut v794 = v793 * 0.5;
        v794 += w[2] * v397.cos() * 0.1;
        let v795 = mix(&[v794, v397]);
        let v796 = {
            let mut s = v795;
            for i in 0..3 {
                s = (s + w[i] * v398).tanh();
            }
            s
        };
        assert!(v796.is_finite());
        let v797 = v796 - v398 * 0.125;
        let (v798, _) = (v797.sin() * 0.5 + v399 * 0.25, v797);
        let v799: f64 = v798 * v399.tanh() + 0.01 * y;
        let v800 = v799 * v400 * 0.5 + x;
        let v801 = v800.sin() - y * 0.5;
        let v802 = (v801 + v401) * 0.25;
        let v803 = v802.tanh() * y + v401 * 0.5;
        let mut v804 = v803 * 0.5;
        v804 += w[0] * v402.cos() * 0.1;
        let v805 = mix(&[v804, v402]);
        let v806 = {
            let mut s = v805;
            for i in 0..3 {
                s = (s + w[i] * v403).tanh();
            }
            s
        };
        assert!(v806.is_finite());
        let v807 = v806 - v403 * 0.125;
        let (v808, _) = (v807.sin() * 0.5 + v404 * 0.25, v807);
        let v809: f64 = v808 * v404.tanh() + 0.01 * y;
        let v810 = v809 * v405 * 0.5 + x;
        let v811 = v810.sin() - y * 0.5;
        let v812 = (v811 + v406) * 0.25;
        let v813 = v812.tanh() * y + v406 * 0.5;
        let mut v814 = v813 * 0.5;
        v814 += w[1] * v407.cos() * 0.1;
        let v815 = mix(&[v814, v407]);
        let v816 = {
            let mut s = v815;
            for i in 0..3 {
                s = (s + w[i] * v408).tanh();
            }
            s
        };
        assert!(v816.is_finite());
        let v817 = v816 - v408 * 0.125;
        let (v818, _) = (v817.sin() * 0.5 + v409 * 0.25, v817);
        let v819: f64 = v818 * v409.tanh() + 0.01 * y;
        let v820 = v819 * v410 * 0.5 + x;
        let v821 = v820.sin() - y * 0.5;
        let v822 = (v821 + v411) * 0.25;
        let v823 = v822.tanh() * y + v411 * 0.5;
        let mut v824 = v823 * 0.5;
        v824 += w[2] * v412.cos() * 0.1;
        let v825 = mix(&[v824, v412]);
        let v826 = {
            let mut s = v825;
            for i in 0..3 {
                s = (s + w[i] * v413).tanh();
            }
            s
        };
        assert!(v826.is_finite());
        let v827 = v826 - v413 * 0.125;
        let (v828, _) = (v827.sin() * 0.5 + v414 * 0.25, v827);
        let v829: f64 = v828 * v414.tanh() + 0.01 * y;
        let v830 = v829 * v415 * 0.5 + x;
        let v831 = v830.sin() - y * 0.5;
        let v832 = (v831 + v416) * 0.25;
        let v833 = v832.tanh() * y + v416 * 0.5;
        let mut v834 = v833 * 0.5;
        v834 += w[0] * v417.cos() * 0.1;
        let v835 = mix(&[v834, v417]);
        let v836 = {
            let mut s = v835;
            for i in 0..3 {
                s = (s + w[i] * v418).tanh();
            }
            s
        };
        assert!(v836.is_finite());
        let v837 = v836 - v418 * 0.125;
        let (v838, _) = (v837.sin() * 0.5 + v419 * 0.25, v837);
        let v839: f64 = v838 * v419.tanh() + 0.01 * y;
        let v840 = v839 * v420 * 0.5 + x;
        let v841 = v840.sin() - y * 0.5;
        let v842 = (v841 + v421) * 0.25;
        let v843 = v842.tanh() * y + v421 * 0.5;
        let mut v844 = v843 * 0.5;
        v844 += w[1] * v422.cos() * 0.1;
        let v845 = mix(&[v844, v422]);
        let v846 = {
            let mut s = v845;
            for i in 0..3 {
                s = (s + w[i] * v423).tanh();
            }
            s
        };
        assert!(v846.is_finite());
        let v847 = v846 - v423 * 0.125;
        let (v848, _) = (v847.sin() * 0.5 + v424 * 0.25, v847);
        let v849: f64 = v848 * v424.tanh() + 0.01 * y;
        let v850 = v849 * v425 * 0.5 + x;
        let v851 = v850.sin() - y * 0.5;
        let v852 = (v851 + v426) * 0.25;
        let v853 = v852.tanh() * y + v426 * 0.5;
        let mut v854 = v853 * 0.5;
        v854 += w[2] * v427.cos() * 0.1;
        let v855 = mix(&[v854, v427]);
        let v856 = {
            let mut s = v855;
            for i in 0..3 {
                s = (s + w[i] * v428).tanh();
            }
            s
        };
        assert!(v856.is_finite());
        let v857 = v856 - v428 * 0.125;
        let (v858, _) = (v857.sin() * 0.5 + v429 * 0.25, v857);
        let v859: f64 = v858 * v429.tanh() + 0.01 * y;
        let v860 = v859 * v430 * 0.5 + x;
        let v861 = v860.sin() - y * 0.5;
        let v862 = (v861 + v431) * 0.25;
        let v863 = v862.tanh() * y + v431 * 0.5;
        let mut v864 = v863 * 0.5;
        v864 += w[0] * v432.cos() * 0.1;
        let v865 = mix(&[v864, v432]);
        let v866 = {
            let mut s = v865;
            for i in 0..3 {
                s = (s + w[i] * v433).tanh();
            }
            s
        };
        assert!(v866.is_finite());
        let v867 = v866 - v433 * 0.125;
        let (v868, _) = (v867.sin() * 0.5 + v434 * 0.25, v867);
        let v869: f64 = v868 * v434.tanh() + 0.01 * y;
        let v870 = v869 * v435 * 0.5 + x;
        let v871 = v870.sin() - y * 0.5;
        let v872 = (v871 + v436) * 0.25;
        let v873 = v872.tanh() * y + v436 * 0.5;
        let mut v874 = v873 * 0.5;
        v874 += w[1] * v437.cos() * 0.1;
        let v875 = mix(&[v874, v437]);
        let v876 = {
            let mut s = v875;
            for i in 0..3 {
                s = (s + w[i] * v438).tanh();
            }
            s
        };
        assert!(v876.is_finite());
        let v877 = v876 - v438 * 0.125;
        let (v878, _) = (v877.sin() * 0.5 + v439 * 0.25, v877);
        let v879: f64 = v878 * v439.tanh() + 0.01 * y;
        let v880 = v879 * v440 * 0.5 + x;
        let v881 = v880.sin() - y * 0.5;
        let v882 = (v881 + v441) * 0.25;
        let v883 = v882.tanh() * y + v441 * 0.5;
        let mut v884 = v883 * 0.5;
        v884 += w[2] * v442.cos() * 0.1;
        let v885 = mix(&[v884, v442]);
        let v886 = {
            let mut s = v885;
            for i in 0..3 {
                s = (s + w[i] * v443).tanh();
            }
            s
        };
        assert!(v886.is_finite());
        let v887 = v886 - v443 * 0.125;
        let (v888, _) = (v887.sin() * 0.5 + v444 * 0.25, v887);
        let v889: f64 = v888 * v444.tanh() + 0.01 * y;
        let v890 = v889 * v445 * 0.5 + x;
        let v891 = v890.sin() - y * 0.5;
        let v892 = (v891 + v446) * 0.25;
        let v893 = v892.tanh() * y + v446 * 0.5;
        let mut v894 = v893 * 0.5;
        v894 += w[0] * v447.cos() * 0.1;
        let v895 = mix(&[v894, v447]);
        let v896 = {
            let mut s = v895;
            for i in 0..3 {
                s = (s + w[i] * v448).tanh();
            }
            s
        };
        assert!(v896.is_finite());
        let v897 = v896 - v448 * 0.125;
        let (v898, _) = (v897.sin() * 0.5 + v449 * 0.25, v897);
        let v899: f64 = v898 * v449.tanh() + 0.01 * y;
        let v900 = v899 * v450 * 0.5 + x;
        let v901 = v900.sin() - y * 0.5;
        let v902 = (v901 + v451) * 0.25;
        let v903 = v902.tanh() * y + v451 * 0.5;
        let mut v904 = v903 * 0.5;
        v904 += w[1] * v452.cos() * 0.1;
        let v905 = mix(&[v904, v452]);
        let v906 = {
            let mut s = v905;
            for i in 0..3 {
                s = (s + w[i] * v453).tanh();
            }
            s
        };
        assert!(v906.is_finite());
        let v907 = v906 - v453 * 0.125;
        let (v908, _) = (v907.sin() * 0.5 + v454 * 0.25, v907);
        let v909: f64 = v908 * v454.tanh() + 0.01 * y;
        let v910 = v909 * v455 * 0.5 + x;
        let v911 = v910.sin() - y * 0.5;
        let v912 = (v911 + v456) * 0.25;
        let v913 = v912.tanh() * y + v456 * 0.5;
        let mut v914 = v913 * 0.5;
        v914 += w[2] * v457.cos() * 0.1;
        let v915 = mix(&[v914, v457]);
        let v916 = {
            let mut s = v915;
            for i in 0..3 {
                s = (s + w[i] * v458).tanh();
            }
            s
        };
        assert!(v916.is_finite());
        let v917 = v916 - v458 * 0.125;
        let (v918, _) = (v917.sin() * 0.5 + v459 * 0.25, v917);
        let v919: f64 = v918 * v459.tanh() + 0.01 * y;
        let v920 = v919 * v460 * 0.5 + x;
        let v921 = v920.sin() - y * 0.5;
        let v922 = (v921 + v461) * 0.25;
        let v923 = v922.tanh() * y + v461 * 0.5;
        let mut v924 = v923 * 0.5;
        v924 += w[0] * v462.cos() * 0.1;
        let v925 = mix(&[v924, v462]);
        let v926 = {
            let mut s = v925;
            for i in 0..3 {
                s = (s + w[i] * v463).tanh();
            }
            s
        };
        assert!(v926.is_finite());
        let v927 = v926 - v463 * 0.125;
        let (v928, _) = (v927.sin() * 0.5 + v464 * 0.25, v927);
        let v929: f64 = v928 * v464.tanh() + 0.01 * y;
        let v930 = v929 * v465 * 0.5 + x;
        let v931 = v930.sin() - y * 0.5;
        let v932 = (v931 + v466) * 0.25;
        let v933 = v932.tanh() * y + v466 * 0.5;
        let mut v934 = v933 * 0.5;
        v934 += w[1] * v467.cos() * 0.1;
        let v935 = mix(&[v934, v467]);
        let v936 = {
            let mut s = v935;
            for i in 0..3 {
                s = (s + w[i] * v468).tanh();
            }
            s
        };
        assert!(v936.is_finite());
        let v937 = v936 - v468 * 0.125;
        let (v938, _) = (v937.sin() * 0.5 + v469 * 0.25, v937);
        let v939: f64 = v938 * v469.tanh() + 0.01 * y;
        let v940 = v939 * v470 * 0.5 + x;
        let v941 = v940.sin() - y * 0.5;
        let v942 = (v941 + v471) * 0.25;
        let v943 = v942.tanh() * y + v471 * 0.5;
        let mut v944 = v943 * 0.5;
        v944 += w[2] * v472.cos() * 0.1;
        let v945 = mix(&[v944, v472]);
        let v946 = {
            let mut s = v945;
            for i in 0..3 {
                s = (s + w[i] * v473).tanh();
            }
            s
        };
        assert!(v946.is_finite());
        let v947 = v946 - v473 * 0.125;
        let (v948, _) = (v947.sin() * 0.5 + v474 * 0.25, v947);
        let v949: f64 = v948 * v474.tanh() + 0.01 * y;
        let v950 = v949 * v475 * 0.5 + x;
        let v951 = v950.sin() - y * 0.5;
        let v952 = (v951 + v476) * 0.25;
        let v953 = v952.tanh() * y + v476 * 0.5;
        let mut v954 = v953 * 0.5;
        v954 += w[0] * v477.cos() * 0.1;
        let v955 = mix(&[v954, v477]);
        let v956 = {
            let mut s = v955;
            for i in 0..3 {
                s = (s + w[i] * v478).tanh();
            }
            s
        };
        assert!(v956.is_finite());
        let v957 = v956 - v478 * 0.125;
        let (v958, _) = (v957.sin() * 0.5 + v479 * 0.25, v957);
        let v959: f64 = v958 * v479.tanh() + 0.01 * y;
        let v960 = v959 * v480 * 0.5 + x;
        let v961 = v960.sin() - y * 0.5;
        let v962 = (v961 + v481) * 0.25;
        let v963 = v962.tanh() * y + v481 * 0.5;
        let mut v964 = v963 * 0.5;
        v964 += w[1] * v482.cos() * 0.1;
        let v965 = mix(&[v964, v482]);
        let v966 = {
            let mut s = v965;
            for i in 0..3 {
                s = (s + w[i] * v483).tanh();
            }
            s
        };
        assert!(v966.is_finite());
        let v967 = v966 - v483 * 0.125;
        let (v968, _) = (v967.sin() * 0.5 + v484 * 0.25, v967);
        let v969: f64 = v968 * v484.tanh() + 0.01 * y;
        let v970 = v969 * v485 * 0.5 + x;
        let v971 = v970.sin() - y * 0.5;
        let v972 = (v971 + v486) * 0.25;
        let v973 = v972.tanh() * y + v486 * 0.5;
        let mut v974 = v973 * 0.5;
        v974 += w[2] * v487.cos() * 0.1;
        let v975 = mix(&[v974, v487]);
        let v976 = {
            let mut s = v975;
            for i in 0..3 {
                s = (s + w[i] * v488).tanh();
            }
            s
        };
        assert!(v976.is_finite());
        let v977 = v976 - v488 * 0.125;
        let (v978, _) = (v977.sin() * 0.5 + v489 * 0.25, v977);
        let v979: f64 = v978 * v489.tanh() + 0.01 * y;
        let v980 = v979 * v490 * 0.5 + x;
        let v981 = v980.sin() - y * 0.5;
        let v982 = (v981 + v491) * 0.25;
        let v983 = v982.tanh() * y + v491 * 0.5;
        let mut v984 = v983 * 0.5;
        v984 += w[0] * v492.cos() * 0.1;
        let v985 = mix(&[v984, v492]);
        let v986 = {
            let mut s = v985;
            for i in 0..3 {
                s = (s + w[i] * v493).tanh();
            }
            s
        };
        assert!(v986.is_finite());
        let v987 = v986 - v493 * 0.125;
        let (v988, _) = (v987.sin() * 0.5 + v494 * 0.25, v987);
        let v989: f64 = v988 * v494.tanh() + 0.01 * y;
        let v990 = v989 * v495 * 0.5 + x;
        let v991 = v990.sin() - y * 0.5;
        let v992 = (v991 + v496) * 0.25;
        let v993 = v992.tanh() * y + v496 * 0.5;
        let mut v994 = v993 * 0.5;
        v994 += w[1] * v497.cos() * 0.1;
        let v995 = mix(&[v994, v497]);
        let v996 = {
            let mut s = v995;
            for i in 0..3 {
                s = (s + w[i] * v498).tanh();
            }
            s
        };
        assert!(v996.is_finite());
        let v997 = v996 - v498 * 0.125;
        let (v998, _) = (v997.sin() * 0.5 + v499 * 0.25, v997);
        let v999: f64 = v998 * v499.tanh() + 0.01 * y;
        let v1000 = v999 * v500 * 0.5 + x;
        let v1001 = v1000.sin() - y * 0.5;
        let v1002 = (v1001 + v501) * 0.25;
        let v1003 = v1002.tanh() * y + v501 * 0.5;
        let mut v1004 = v1003 * 0.5;
        v1004 += w[2] * v502.cos() * 0.1;
        let v1005 = mix(&[v1004, v502]);
        let v1006 = {
            let mut s = v1005;
            for i in 0..3 {
                s = (s + w[i] * v503).tanh();
            }
            s
        };
        assert!(v1006.is_finite());
        let v1007 = v1006 - v503 * 0.125;
        let (v1008, _) = (v1007.sin() * 0.5 + v504 * 0.25, v1007);
        let v1009: f64 = v1008 * v504.tanh() + 0.01 * y;
        let v1010 = v1009 * v505 * 0.5 + x;
        let v1011 = v1010.sin() - y * 0.5;
        let v1012 = (v1011 + v506) * 0.25;
        let v1013 = v1012.tanh() * y + v506 * 0.5;
        let mut v1014 = v1013 * 0.5;
        v1014 += w[0] * v507.cos() * 0.1;
        let v1015 = mix(&[v1014, v507]);
        let v1016 = {
            let mut s = v1015;
            for i in 0..3 {
                s = (s + w[i] * v508).tanh();
            }
            s
        };
        assert!(v1016.is_finite());
        let v1017 = v1016 - v508 * 0.125;
        let (v1018, _) = (v1017.sin() * 0.5 + v509 * 0.25, v1017);
        let v1019: f64 = v1018 * v509.tanh() + 0.01 * y;
        let v1020 = v1019 * v510 * 0.5 + x;
        let v1021 = v1020.sin() - y * 0.5;
        let v1022 = (v1021 + v511) * 0.25;
        let v1023 = v1022.tanh() * y + v511 * 0.5;
        let mut v1024 = v1023 * 0.5;
        v1024 += w[1] * v512.cos() * 0.1;
        let v1025 = mix(&[v1024, v512]);
        let v1026 = {
            let mut s = v1025;
            for i in 0..3 {
                s = (s + w[i] * v513).tanh();
            }
            s
        };
        assert!(v1026.is_finite());
        let v1027 = v1026 - v513 * 0.125;
        let (v1028, _) = (v1027.sin() * 0.5 + v514 * 0.25, v1027);
        let v1029: f64 = v1028 * v514.tanh() + 0.01 * y;
        let v1030 = v1029 * v515 * 0.5 + x;
        let v1031 = v1030.sin() - y * 0.5;
        let v1032 = (v1031 + v516) * 0.25;
        let v1033 = v1032.tanh() * y + v516 * 0.5;
        let mut v1034 = v1033 * 0.5;
        v1034 += w[2] * v517.cos() * 0.1;
        let v1035 = mix(&[v1034, v517]);
        let v1036 = {
            let mut s = v1035;
            for i in 0..3 {
                s = (s + w[i] * v518).tanh();
            }
            s
        };
        assert!(v1036.is_finite());
        let v1037 = v1036 - v518 * 0.125;
        let (v1038, _) = (v1037.sin() * 0.5 + v519 * 0.25, v1037);
        let v1039: f64 = v1038 * v519.tanh() + 0.01 * y;
        let v1040 = v1039 * v520 * 0.5 + x;
        let v1041 = v1040.sin() - y * 0.5;
        let v1042 = (v1041 + v521) * 0.25;
        let v1043 = v1042.tanh() * y + v521 * 0.5;
        let mut v1044 = v1043 * 0.5;
        v1044 += w[0] * v522.cos() * 0.1;
        let v1045 = mix(&[v1044, v522]);
        let v1046 = {
            let mut s = v1045;
            for i in 0..3 {
                s = (s + w[i] * v523).tanh();
            }
            s
        };
        assert!(v1046.is_finite());
        let v1047 = v1046 - v523 * 0.125;
        let (v1048, _) = (v1047.sin() * 0.5 + v524 * 0.25, v1047);
        let v1049: f64 = v1048 * v524.tanh() + 0.01 * y;
        let v1050 = v1049 * v525 * 0.5 + x;
        let v1051 = v1050.sin() - y * 0.5;
        let v1052 = (v1051 + v526) * 0.25;
        let v1053 = v1052.tanh() * y + v526 * 0.5;
        let mut v1054 = v1053 * 0.5;
        v1054 += w[1] * v527.cos() * 0.1;
        let v1055 = mix(&[v1054, v527]);
        let v1056 = {
            let mut s = v1055;
            for i in 0..3 {
                s = (s + w[i] * v528).tanh();
            }
            s
        };
        assert!(v1056.is_finite());
        let v1057 = v1056 - v528 * 0.125;
        let (v1058, _) = (v1057.sin() * 0.5 + v529 * 0.25, v1057);
        let v1059: f64 = v1058 * v529.tanh() + 0.01 * y;
        let v1060 = v1059 * v530 * 0.5 + x;
        let v1061 = v1060.sin() - y * 0.5;
        let v1062 = (v1061 + v531) * 0.25;
        let v1063 = v1062.tanh() * y + v531 * 0.5;
        let mut v1064 = v1063 * 0.5;
        v1064 += w[2] * v532.cos() * 0.1;
        let v1065 = mix(&[v1064, v532]);
        let v1066 = {
            let mut s = v1065;
            for i in 0..3 {
                s = (s + w[i] * v533).tanh();
            }
            s
        };
        assert!(v1066.is_finite());
        let v1067 = v1066 - v533 * 0.125;
        let (v1068, _) = (v1067.sin() * 0.5 + v534 * 0.25, v1067);
        let v1069: f64 = v1068 * v534.tanh() + 0.01 * y;
        let v1070 = v1069 * v535 * 0.5 + x;
        let v1071 = v1070.sin() - y * 0.5;
        let v1072 = (v1071 + v536) * 0.25;
        let v1073 = v1072.tanh() * y + v536 * 0.5;
        let mut v1074 = v1073 * 0.5;
        v1074 += w[0] * v537.cos() * 0.1;
        let v1075 = mix(&[v1074, v537]);
        let v1076 = {
            let mut s = v1075;
            for i in 0..3 {
                s = (s + w[i] * v538).tanh();
            }
            s
        };
        assert!(v1076.is_finite());
        let v1077 = v1076 - v538 * 0.125;
        let (v1078, _) = (v1077.sin() * 0.5 + v539 * 0.25, v1077);
        let v1079: f64 = v1078 * v539.tanh() + 0.01 * y;
        let v1080 = v1079 * v540 * 0.5 + x;
        let v1081 = v1080.sin() - y * 0.5;
        let v1082 = (v1081 + v541) * 0.25;
        let v1083 = v1082.tanh() * y + v541 * 0.5;
        let mut v1084 = v1083 * 0.5;
        v1084 += w[1] * v542.cos() * 0.1;
        let v1085 = mix(&[v1084, v542]);
        let v1086 = {
            let mut s = v1085;
            for i in 0..3 {
                s = (s + w[i] * v543).tanh();
            }
            s
        };
        assert!(v1086.is_finite());
        let v1087 = v1086 - v543 * 0.125;
        let (v1088, _) = (v1087.sin() * 0.5 + v544 * 0.25, v1087);
        let v1089: f64 = v1088 * v544.tanh() + 0.01 * y;
        let v1090 = v1089 * v545 * 0.5 + x;
        let v1091 = v1090.sin() - y * 0.5;
        let v1092 = (v1091 + v546) * 0.25;
        let v1093 = v1092.tanh() * y + v546 * 0.5;
        let mut v1094 = v1093 * 0.5;
        v1094 += w[2] * v547.cos() * 0.1;
        let v1095 = mix(&[v1094, v547]);
        let v1096 = {
            let mut s = v1095;
            for i in 0..3 {
                s = (s + w[i] * v548).tanh();
            }
            s
        };
        assert!(v1096.is_finite());
        let v1097 = v1096 - v548 * 0.125;
        let (v1098, _) = (v1097.sin() * 0.5 + v549 * 0.25, v1097);
        let v1099: f64 = v1098 * v549.tanh() + 0.01 * y;
        let v1100 = v1099 * v550 * 0.5 + x;
        let v1101 = v1100.sin() - y * 0.5;
        let v1102 = (v1101 + v551) * 0.25;
        let v1103 = v1102.tanh() * y + v551 * 0.5;
        let mut v1104 = v1103 * 0.5;
        v1104 += w[0] * v552.cos() * 0.1;
        let v1105 = mix(&[v1104, v552]);
        let v1106 = {
            let mut s = v1105;
            for i in 0..3 {
                s = (s + w[i] * v553).tanh();
            }
            s
        };
        assert!(v1106.is_finite());
        let v1107 = v1106 - v553 * 0.125;
        let (v1108, _) = (v1107.sin() * 0.5 + v554 * 0.25, v1107);
        let v1109: f64 = v1108 * v554.tanh() + 0.01 * y;
        let v1110 = v1109 * v555 * 0.5 + x;
        let v1111 = v1110.sin() - y * 0.5;
        let v1112 = (v1111 + v556) * 0.25;
        let v1113 = v1112.tanh() * y + v556 * 0.5;
        let mut v1114 = v1113 * 0.5;
        v1114 += w[1] * v557.cos() * 0.1;
        let v1115 = mix(&[v1114, v557]);
        let v1116 = {
            let mut s = v1115;
            for i in 0..3 {
                s = (s + w[i] * v558).tanh();
            }
            s
        };
        assert!(v1116.is_finite());
        let v1117 = v1116 - v558 * 0.125;
        let (v1118, _) = (v1117.sin() * 0.5 + v559 * 0.25, v1117);
        let v1119: f64 = v1118 * v559.tanh() + 0.01 * y;
        let v1120 = v1119 * v560 * 0.5 + x;
        let v1121 = v1120.sin() - y * 0.5;
        let v1122 = (v1121 + v561) * 0.25;
        let v1123 = v1122.tanh() * y + v561 * 0.5;
        let mut v1124 = v1123 * 0.5;
        v1124 += w[2] * v562.cos() * 0.1;
        let v1125 = mix(&[v1124, v562]);
        let v1126 = {
            let mut s = v1125;
            for i in 0..3 {
                s = (s + w[i] * v563).tanh();
            }
            s
        };
        assert!(v1126.is_finite());
        let v1127 = v1126 - v563 * 0.125;
        let (v1128, _) = (v1127.sin() * 0.5 + v564 * 0.25, v1127);
        let v1129: f64 = v1128 * v564.tanh() + 0.01 * y;
        let v1130 = v1129 * v565 * 0.5 + x;
        let v1131 = v1130.sin() - y * 0.5;
        let v1132 = (v1131 + v566) * 0.25;
        let v1133 = v1132.tanh() * y + v566 * 0.5;
        let mut v1134 = v1133 * 0.5;
        v1134 += w[0] * v567.cos() * 0.1;
        let v1135 = mix(&[v1134, v567]);
        let v1136 = {
            let mut s = v1135;
            for i in 0..3 {
                s = (s + w[i] * v568).tanh();
            }
            s
        };
        assert!(v1136.is_finite());
        let v1137 = v1136 - v568 * 0.125;
        let (v1138, _) = (v1137.sin() * 0.5 + v569 * 0.25, v1137);
        let v1139: f64 = v1138 * v569.tanh() + 0.01 * y;
        let v1140 = v1139 * v570 * 0.5 + x;
        let v1141 = v1140.sin() - y * 0.5;
        let v1142 = (v1141 + v571) * 0.25;
        let v1143 = v1142.tanh() * y + v571 * 0.5;
        let mut v1144 = v1143 * 0.5;
        v1144 += w[1] * v572.cos() * 0.1;
        let v1145 = mix(&[v1144, v572]);
        let v1146 = {
            let mut s = v1145;
            for i in 0..3 {
                s = (s + w[i] * v573).tanh();
            }
            s
        };
        assert!(v1146.is_finite());
        let v1147 = v1146 - v573 * 0.125;
        let (v1148, _) = (v1147.sin() * 0.5 + v574 * 0.25, v1147);
        let v1149: f64 = v1148 * v574.tanh() + 0.01 * y;
        let v1150 = v1149 * v575 * 0.5 + x;
        let v1151 = v1150.sin() - y * 0.5;
        let v1152 = (v1151 + v576) * 0.25;
        let v1153 = v1152.tanh() * y + v576 * 0.5;
        let mut v1154 = v1153 * 0.5;
        v1154 += w[2] * v577.cos() * 0.1;
        let v1155 = mix(&[v1154, v577]);
        let v1156 = {
            let mut s = v1155;
            for i in 0..3 {
                s = (s + w[i] * v578).tanh();
            }
            s
        };
        assert!(v1156.is_finite());
        let v1157 = v1156 - v578 * 0.125;
        let (v1158, _) = (v1157.sin() * 0.5 + v579 * 0.25, v1157);
        let v1159: f64 = v1158 * v579.tanh() + 0.01 * y;
        let v1160 = v1159 * v580 * 0.5 + x;
        let v1161 = v1160.sin() - y * 0.5;
        let v1162 = (v1161 + v581) * 0.25;
        let v1163 = v1162.tanh() * y + v581 * 0.5;
        let mut v1164 = v1163 * 0.5;
        v1164 += w[0] * v582.cos() * 0.1;
        let v1165 = mix(&[v1164, v582]);
        let v1166 = {
            let mut s = v1165;
            for i in 0..3 {
                s = (s + w[i] * v583).tanh();
            }
            s
        };
        assert!(v1166.is_finite());
        let v1167 = v1166 - v583 * 0.125;
        let (v1168, _) = (v1167.sin() * 0.5 + v584 * 0.25, v1167);
        let v1169: f64 = v1168 * v584.tanh() + 0.01 * y;
        let v1170 = v1169 * v585 * 0.5 + x;
        let v1171 = v1170.sin() - y * 0.5;
        let v1172 = (v1171 + v586) * 0.25;
        let v1173 = v1172.tanh() * y + v586 * 0.5;
        let mut v1174 = v1173 * 0.5;
        v1174 += w[1] * v587.cos() * 0.1;
        let v1175 = mix(&[v1174, v587]);
        let v1176 = {
            let mut s = v1175;
            for i in 0..3 {
                s = (s + w[i] * v588).tanh();
            }
            s
        };
        assert!(v1176.is_finite());
        let v1177 = v1176 - v588 * 0.125;
        let (v1178, _) = (v1177.sin() * 0.5 + v589 * 0.25, v1177);
        let v1179: f64 = v1178 * v589.tanh() + 0.01 * y;
        let v1180 = v1179 * v590 * 0.5 + x;
        let v1181 = v1180.sin() - y * 0.5;
        let v1182 = (v1181 + v591) * 0.25;
        let v1183 = v1182.tanh() * y + v591 * 0.5;
        let mut v1184 = v1183 * 0.5;
        v1184 += w[2] * v592.cos() * 0.1;
        let v1185 = mix(&[v1184, v592]);
        let v1186 = {
            let mut s = v1185;
            for i in 0..3 {
                s = (s + w[i] * v593).tanh();
            }
            s
        };
        assert!(v1186.is_finite());
        let v1187 = v1186 - v593 * 0.125;
        let (v1188, _) = (v1187.sin() * 0.5 + v594 * 0.25, v1187);
        let v1189: f64 = v1188 * v594.tanh() + 0.01 * y;
        let v1190 = v1189 * v595 * 0.5 + x;
        let v1191 = v1190.sin() - y * 0.5;
        let v1192 = (v1191 + v596) * 0.25;
        let v1193 = v1192.tanh() * y + v596 * 0.5;
        let mut v1194 = v1193 * 0.5;
        v1194 += w[0] * v597.cos() * 0.1;
        let v1195 = mix(&[v1194, v597]);
        let v1196 = {
            let mut s = v1195;
            for i in 0..3 {
                s = (s + w[i] * v598).tanh();
            }
            s
        };
        assert!(v1196.is_finite());
        let v1197 = v1196 - v598 * 0.125;
        let (v1198, _) = (v1197.sin() * 0.5 + v599 * 0.25, v1197);
        let v1199: f64 = v1198 * v599.tanh() + 0.01 * y;
        v1199
    }
}

#[test]
fn a_long_function_builds_and_its_gradient_is_right() {
    for (x, y, w) in [(0.3, -0.7, [0.5, -0.2, 0.9]), (1.1, 0.4, [-0.3, 0.8, 0.1])] {
        let (_, (gx, gy, gw)) = long::long_grad(x, y, &w);
        let f = |p: &[f64]| long::long(p[0], p[1], &[p[2], p[3], p[4]]);
        let at = [x, y, w[0], w[1], w[2]];
        let claimed = [gx, gy, gw[0], gw[1], gw[2]];
        fd::agrees("long", &f, &at, &claimed, 1e-6);
    }
}

/// Long blocks of statements that are not all `let`s: a `let` assigned
/// later in the arms of an `if`, a labelled loop left by `break`, `match`,
/// a borrow of a local, a `let` of an `if`, `while`, a closure, a block,
/// a typed tuple. The same ten forms in turn, 300 lines, also written by a
/// script.
#[mica::tape]
pub fn mixed(#[tracked] x: f64, #[tracked] y: f64, #[tracked] w: &[f64; 3], n: usize) -> f64 {
    let v0 = x * y + w[0];
    let v1;
    if v0 > 0.0 {
        v1 = v0.tanh();
    } else {
        v1 = v0 * 0.5;
    }
    let mut v2 = v1;
    'l2: for i in 0..3 {
        v2 = (v2 + w[i] * 0.5).sin();
        if v2 > 2.0 {
            break 'l2;
        }
    }
    let v3 = match n % 3 {
        0 => v2 * 0.9,
        1 => v1.cos(),
        _ => v2 - 0.1,
    };
    let h4 = [v3, v2];
    let r4 = &h4;
    let v4 = r4[0] * 0.5 + r4[1] * 0.25;
    let v5 = if v4 < v2 { v4 } else { v2 * 0.75 };
    let mut v6 = v5 * 1.5;
    while v6.abs() > 1.0 {
        v6 *= 0.5;
    }
    let f7 = |a: f64| a * 0.5 + 0.1;
    let v7 = f7(v6) + v3 * 0.1;
    let v8 = {
        let t = v7 * v7;
        (t + 1.0).ln()
    };
    let (v9, _u9): (f64, f64) = (v8.atan(), v4);
    let v10 = v9 * 0.5 + v5.sin() * 0.25;
    let v11;
    if v10 > 0.0 {
        v11 = v10.tanh();
    } else {
        v11 = v5 * 0.5;
    }
    let mut v12 = v11;
    'l12: for i in 0..3 {
        v12 = (v12 + w[i] * 0.5).sin();
        if v12 > 2.0 {
            break 'l12;
        }
    }
    let v13 = match n % 3 {
        0 => v12 * 0.9,
        1 => v6.cos(),
        _ => v12 - 0.1,
    };
    let h14 = [v13, v7];
    let r14 = &h14;
    let v14 = r14[0] * 0.5 + r14[1] * 0.25;
    let v15 = if v14 < v7 { v14 } else { v7 * 0.75 };
    let mut v16 = v15 * 1.5;
    while v16.abs() > 1.0 {
        v16 *= 0.5;
    }
    let f17 = |a: f64| a * 0.5 + 0.1;
    let v17 = f17(v16) + v8 * 0.1;
    let v18 = {
        let t = v17 * v17;
        (t + 1.0).ln()
    };
    let (v19, _u19): (f64, f64) = (v18.atan(), v9);
    let v20 = v19 * 0.5 + v10.sin() * 0.25;
    let v21;
    if v20 > 0.0 {
        v21 = v20.tanh();
    } else {
        v21 = v10 * 0.5;
    }
    let mut v22 = v21;
    'l22: for i in 0..3 {
        v22 = (v22 + w[i] * 0.5).sin();
        if v22 > 2.0 {
            break 'l22;
        }
    }
    let v23 = match n % 3 {
        0 => v22 * 0.9,
        1 => v11.cos(),
        _ => v22 - 0.1,
    };
    let h24 = [v23, v12];
    let r24 = &h24;
    let v24 = r24[0] * 0.5 + r24[1] * 0.25;
    let v25 = if v24 < v12 { v24 } else { v12 * 0.75 };
    let mut v26 = v25 * 1.5;
    while v26.abs() > 1.0 {
        v26 *= 0.5;
    }
    let f27 = |a: f64| a * 0.5 + 0.1;
    let v27 = f27(v26) + v13 * 0.1;
    let v28 = {
        let t = v27 * v27;
        (t + 1.0).ln()
    };
    let (v29, _u29): (f64, f64) = (v28.atan(), v14);
    let v30 = v29 * 0.5 + v15.sin() * 0.25;
    let v31;
    if v30 > 0.0 {
        v31 = v30.tanh();
    } else {
        v31 = v15 * 0.5;
    }
    let mut v32 = v31;
    'l32: for i in 0..3 {
        v32 = (v32 + w[i] * 0.5).sin();
        if v32 > 2.0 {
            break 'l32;
        }
    }
    let v33 = match n % 3 {
        0 => v32 * 0.9,
        1 => v16.cos(),
        _ => v32 - 0.1,
    };
    let h34 = [v33, v17];
    let r34 = &h34;
    let v34 = r34[0] * 0.5 + r34[1] * 0.25;
    let v35 = if v34 < v17 { v34 } else { v17 * 0.75 };
    let mut v36 = v35 * 1.5;
    while v36.abs() > 1.0 {
        v36 *= 0.5;
    }
    let f37 = |a: f64| a * 0.5 + 0.1;
    let v37 = f37(v36) + v18 * 0.1;
    let v38 = {
        let t = v37 * v37;
        (t + 1.0).ln()
    };
    let (v39, _u39): (f64, f64) = (v38.atan(), v19);
    let v40 = v39 * 0.5 + v20.sin() * 0.25;
    let v41;
    if v40 > 0.0 {
        v41 = v40.tanh();
    } else {
        v41 = v20 * 0.5;
    }
    let mut v42 = v41;
    'l42: for i in 0..3 {
        v42 = (v42 + w[i] * 0.5).sin();
        if v42 > 2.0 {
            break 'l42;
        }
    }
    let v43 = match n % 3 {
        0 => v42 * 0.9,
        1 => v21.cos(),
        _ => v42 - 0.1,
    };
    let h44 = [v43, v22];
    let r44 = &h44;
    let v44 = r44[0] * 0.5 + r44[1] * 0.25;
    let v45 = if v44 < v22 { v44 } else { v22 * 0.75 };
    let mut v46 = v45 * 1.5;
    while v46.abs() > 1.0 {
        v46 *= 0.5;
    }
    let f47 = |a: f64| a * 0.5 + 0.1;
    let v47 = f47(v46) + v23 * 0.1;
    let v48 = {
        let t = v47 * v47;
        (t + 1.0).ln()
    };
    let (v49, _u49): (f64, f64) = (v48.atan(), v24);
    let v50 = v49 * 0.5 + v25.sin() * 0.25;
    let v51;
    if v50 > 0.0 {
        v51 = v50.tanh();
    } else {
        v51 = v25 * 0.5;
    }
    let mut v52 = v51;
    'l52: for i in 0..3 {
        v52 = (v52 + w[i] * 0.5).sin();
        if v52 > 2.0 {
            break 'l52;
        }
    }
    let v53 = match n % 3 {
        0 => v52 * 0.9,
        1 => v26.cos(),
        _ => v52 - 0.1,
    };
    let h54 = [v53, v27];
    let r54 = &h54;
    let v54 = r54[0] * 0.5 + r54[1] * 0.25;
    let v55 = if v54 < v27 { v54 } else { v27 * 0.75 };
    let mut v56 = v55 * 1.5;
    while v56.abs() > 1.0 {
        v56 *= 0.5;
    }
    let f57 = |a: f64| a * 0.5 + 0.1;
    let v57 = f57(v56) + v28 * 0.1;
    let v58 = {
        let t = v57 * v57;
        (t + 1.0).ln()
    };
    let (v59, _u59): (f64, f64) = (v58.atan(), v29);
    let v60 = v59 * 0.5 + v30.sin() * 0.25;
    let v61;
    if v60 > 0.0 {
        v61 = v60.tanh();
    } else {
        v61 = v30 * 0.5;
    }
    let mut v62 = v61;
    'l62: for i in 0..3 {
        v62 = (v62 + w[i] * 0.5).sin();
        if v62 > 2.0 {
            break 'l62;
        }
    }
    let v63 = match n % 3 {
        0 => v62 * 0.9,
        1 => v31.cos(),
        _ => v62 - 0.1,
    };
    let h64 = [v63, v32];
    let r64 = &h64;
    let v64 = r64[0] * 0.5 + r64[1] * 0.25;
    let v65 = if v64 < v32 { v64 } else { v32 * 0.75 };
    let mut v66 = v65 * 1.5;
    while v66.abs() > 1.0 {
        v66 *= 0.5;
    }
    let f67 = |a: f64| a * 0.5 + 0.1;
    let v67 = f67(v66) + v33 * 0.1;
    let v68 = {
        let t = v67 * v67;
        (t + 1.0).ln()
    };
    let (v69, _u69): (f64, f64) = (v68.atan(), v34);
    let v70 = v69 * 0.5 + v35.sin() * 0.25;
    let v71;
    if v70 > 0.0 {
        v71 = v70.tanh();
    } else {
        v71 = v35 * 0.5;
    }
    let mut v72 = v71;
    'l72: for i in 0..3 {
        v72 = (v72 + w[i] * 0.5).sin();
        if v72 > 2.0 {
            break 'l72;
        }
    }
    let v73 = match n % 3 {
        0 => v72 * 0.9,
        1 => v36.cos(),
        _ => v72 - 0.1,
    };
    let h74 = [v73, v37];
    let r74 = &h74;
    let v74 = r74[0] * 0.5 + r74[1] * 0.25;
    let v75 = if v74 < v37 { v74 } else { v37 * 0.75 };
    let mut v76 = v75 * 1.5;
    while v76.abs() > 1.0 {
        v76 *= 0.5;
    }
    let f77 = |a: f64| a * 0.5 + 0.1;
    let v77 = f77(v76) + v38 * 0.1;
    let v78 = {
        let t = v77 * v77;
        (t + 1.0).ln()
    };
    let (v79, _u79): (f64, f64) = (v78.atan(), v39);
    let v80 = v79 * 0.5 + v40.sin() * 0.25;
    let v81;
    if v80 > 0.0 {
        v81 = v80.tanh();
    } else {
        v81 = v40 * 0.5;
    }
    let mut v82 = v81;
    'l82: for i in 0..3 {
        v82 = (v82 + w[i] * 0.5).sin();
        if v82 > 2.0 {
            break 'l82;
        }
    }
    let v83 = match n % 3 {
        0 => v82 * 0.9,
        1 => v41.cos(),
        _ => v82 - 0.1,
    };
    let h84 = [v83, v42];
    let r84 = &h84;
    let v84 = r84[0] * 0.5 + r84[1] * 0.25;
    let v85 = if v84 < v42 { v84 } else { v42 * 0.75 };
    let mut v86 = v85 * 1.5;
    while v86.abs() > 1.0 {
        v86 *= 0.5;
    }
    let f87 = |a: f64| a * 0.5 + 0.1;
    let v87 = f87(v86) + v43 * 0.1;
    let v88 = {
        let t = v87 * v87;
        (t + 1.0).ln()
    };
    let (v89, _u89): (f64, f64) = (v88.atan(), v44);
    let v90 = v89 * 0.5 + v45.sin() * 0.25;
    let v91;
    if v90 > 0.0 {
        v91 = v90.tanh();
    } else {
        v91 = v45 * 0.5;
    }
    let mut v92 = v91;
    'l92: for i in 0..3 {
        v92 = (v92 + w[i] * 0.5).sin();
        if v92 > 2.0 {
            break 'l92;
        }
    }
    let v93 = match n % 3 {
        0 => v92 * 0.9,
        1 => v46.cos(),
        _ => v92 - 0.1,
    };
    let h94 = [v93, v47];
    let r94 = &h94;
    let v94 = r94[0] * 0.5 + r94[1] * 0.25;
    let v95 = if v94 < v47 { v94 } else { v47 * 0.75 };
    let mut v96 = v95 * 1.5;
    while v96.abs() > 1.0 {
        v96 *= 0.5;
    }
    let f97 = |a: f64| a * 0.5 + 0.1;
    let v97 = f97(v96) + v48 * 0.1;
    let v98 = {
        let t = v97 * v97;
        (t + 1.0).ln()
    };
    let (v99, _u99): (f64, f64) = (v98.atan(), v49);
    let v100 = v99 * 0.5 + v50.sin() * 0.25;
    let v101;
    if v100 > 0.0 {
        v101 = v100.tanh();
    } else {
        v101 = v50 * 0.5;
    }
    let mut v102 = v101;
    'l102: for i in 0..3 {
        v102 = (v102 + w[i] * 0.5).sin();
        if v102 > 2.0 {
            break 'l102;
        }
    }
    let v103 = match n % 3 {
        0 => v102 * 0.9,
        1 => v51.cos(),
        _ => v102 - 0.1,
    };
    let h104 = [v103, v52];
    let r104 = &h104;
    let v104 = r104[0] * 0.5 + r104[1] * 0.25;
    let v105 = if v104 < v52 { v104 } else { v52 * 0.75 };
    let mut v106 = v105 * 1.5;
    while v106.abs() > 1.0 {
        v106 *= 0.5;
    }
    let f107 = |a: f64| a * 0.5 + 0.1;
    let v107 = f107(v106) + v53 * 0.1;
    let v108 = {
        let t = v107 * v107;
        (t + 1.0).ln()
    };
    let (v109, _u109): (f64, f64) = (v108.atan(), v54);
    let v110 = v109 * 0.5 + v55.sin() * 0.25;
    let v111;
    if v110 > 0.0 {
        v111 = v110.tanh();
    } else {
        v111 = v55 * 0.5;
    }
    let mut v112 = v111;
    'l112: for i in 0..3 {
        v112 = (v112 + w[i] * 0.5).sin();
        if v112 > 2.0 {
            break 'l112;
        }
    }
    let v113 = match n % 3 {
        0 => v112 * 0.9,
        1 => v56.cos(),
        _ => v112 - 0.1,
    };
    let h114 = [v113, v57];
    let r114 = &h114;
    let v114 = r114[0] * 0.5 + r114[1] * 0.25;
    let v115 = if v114 < v57 { v114 } else { v57 * 0.75 };
    let mut v116 = v115 * 1.5;
    while v116.abs() > 1.0 {
        v116 *= 0.5;
    }
    let f117 = |a: f64| a * 0.5 + 0.1;
    let v117 = f117(v116) + v58 * 0.1;
    let v118 = {
        let t = v117 * v117;
        (t + 1.0).ln()
    };
    let (v119, _u119): (f64, f64) = (v118.atan(), v59);
    let v120 = v119 * 0.5 + v60.sin() * 0.25;
    let v121;
    if v120 > 0.0 {
        v121 = v120.tanh();
    } else {
        v121 = v60 * 0.5;
    }
    let mut v122 = v121;
    'l122: for i in 0..3 {
        v122 = (v122 + w[i] * 0.5).sin();
        if v122 > 2.0 {
            break 'l122;
        }
    }
    let v123 = match n % 3 {
        0 => v122 * 0.9,
        1 => v61.cos(),
        _ => v122 - 0.1,
    };
    let h124 = [v123, v62];
    let r124 = &h124;
    let v124 = r124[0] * 0.5 + r124[1] * 0.25;
    let v125 = if v124 < v62 { v124 } else { v62 * 0.75 };
    let mut v126 = v125 * 1.5;
    while v126.abs() > 1.0 {
        v126 *= 0.5;
    }
    let f127 = |a: f64| a * 0.5 + 0.1;
    let v127 = f127(v126) + v63 * 0.1;
    let v128 = {
        let t = v127 * v127;
        (t + 1.0).ln()
    };
    let (v129, _u129): (f64, f64) = (v128.atan(), v64);
    let v130 = v129 * 0.5 + v65.sin() * 0.25;
    let v131;
    if v130 > 0.0 {
        v131 = v130.tanh();
    } else {
        v131 = v65 * 0.5;
    }
    let mut v132 = v131;
    'l132: for i in 0..3 {
        v132 = (v132 + w[i] * 0.5).sin();
        if v132 > 2.0 {
            break 'l132;
        }
    }
    let v133 = match n % 3 {
        0 => v132 * 0.9,
        1 => v66.cos(),
        _ => v132 - 0.1,
    };
    let h134 = [v133, v67];
    let r134 = &h134;
    let v134 = r134[0] * 0.5 + r134[1] * 0.25;
    let v135 = if v134 < v67 { v134 } else { v67 * 0.75 };
    let mut v136 = v135 * 1.5;
    while v136.abs() > 1.0 {
        v136 *= 0.5;
    }
    let f137 = |a: f64| a * 0.5 + 0.1;
    let v137 = f137(v136) + v68 * 0.1;
    let v138 = {
        let t = v137 * v137;
        (t + 1.0).ln()
    };
    let (v139, _u139): (f64, f64) = (v138.atan(), v69);
    let v140 = v139 * 0.5 + v70.sin() * 0.25;
    let v141;
    if v140 > 0.0 {
        v141 = v140.tanh();
    } else {
        v141 = v70 * 0.5;
    }
    let mut v142 = v141;
    'l142: for i in 0..3 {
        v142 = (v142 + w[i] * 0.5).sin();
        if v142 > 2.0 {
            break 'l142;
        }
    }
    let v143 = match n % 3 {
        0 => v142 * 0.9,
        1 => v71.cos(),
        _ => v142 - 0.1,
    };
    let h144 = [v143, v72];
    let r144 = &h144;
    let v144 = r144[0] * 0.5 + r144[1] * 0.25;
    let v145 = if v144 < v72 { v144 } else { v72 * 0.75 };
    let mut v146 = v145 * 1.5;
    while v146.abs() > 1.0 {
        v146 *= 0.5;
    }
    let f147 = |a: f64| a * 0.5 + 0.1;
    let v147 = f147(v146) + v73 * 0.1;
    let v148 = {
        let t = v147 * v147;
        (t + 1.0).ln()
    };
    let (v149, _u149): (f64, f64) = (v148.atan(), v74);
    let v150 = v149 * 0.5 + v75.sin() * 0.25;
    let v151;
    if v150 > 0.0 {
        v151 = v150.tanh();
    } else {
        v151 = v75 * 0.5;
    }
    let mut v152 = v151;
    'l152: for i in 0..3 {
        v152 = (v152 + w[i] * 0.5).sin();
        if v152 > 2.0 {
            break 'l152;
        }
    }
    let v153 = match n % 3 {
        0 => v152 * 0.9,
        1 => v76.cos(),
        _ => v152 - 0.1,
    };
    let h154 = [v153, v77];
    let r154 = &h154;
    let v154 = r154[0] * 0.5 + r154[1] * 0.25;
    let v155 = if v154 < v77 { v154 } else { v77 * 0.75 };
    let mut v156 = v155 * 1.5;
    while v156.abs() > 1.0 {
        v156 *= 0.5;
    }
    let f157 = |a: f64| a * 0.5 + 0.1;
    let v157 = f157(v156) + v78 * 0.1;
    let v158 = {
        let t = v157 * v157;
        (t + 1.0).ln()
    };
    let (v159, _u159): (f64, f64) = (v158.atan(), v79);
    let v160 = v159 * 0.5 + v80.sin() * 0.25;
    let v161;
    if v160 > 0.0 {
        v161 = v160.tanh();
    } else {
        v161 = v80 * 0.5;
    }
    let mut v162 = v161;
    'l162: for i in 0..3 {
        v162 = (v162 + w[i] * 0.5).sin();
        if v162 > 2.0 {
            break 'l162;
        }
    }
    let v163 = match n % 3 {
        0 => v162 * 0.9,
        1 => v81.cos(),
        _ => v162 - 0.1,
    };
    let h164 = [v163, v82];
    let r164 = &h164;
    let v164 = r164[0] * 0.5 + r164[1] * 0.25;
    let v165 = if v164 < v82 { v164 } else { v82 * 0.75 };
    let mut v166 = v165 * 1.5;
    while v166.abs() > 1.0 {
        v166 *= 0.5;
    }
    let f167 = |a: f64| a * 0.5 + 0.1;
    let v167 = f167(v166) + v83 * 0.1;
    let v168 = {
        let t = v167 * v167;
        (t + 1.0).ln()
    };
    let (v169, _u169): (f64, f64) = (v168.atan(), v84);
    let v170 = v169 * 0.5 + v85.sin() * 0.25;
    let v171;
    if v170 > 0.0 {
        v171 = v170.tanh();
    } else {
        v171 = v85 * 0.5;
    }
    let mut v172 = v171;
    'l172: for i in 0..3 {
        v172 = (v172 + w[i] * 0.5).sin();
        if v172 > 2.0 {
            break 'l172;
        }
    }
    let v173 = match n % 3 {
        0 => v172 * 0.9,
        1 => v86.cos(),
        _ => v172 - 0.1,
    };
    let h174 = [v173, v87];
    let r174 = &h174;
    let v174 = r174[0] * 0.5 + r174[1] * 0.25;
    let v175 = if v174 < v87 { v174 } else { v87 * 0.75 };
    let mut v176 = v175 * 1.5;
    while v176.abs() > 1.0 {
        v176 *= 0.5;
    }
    let f177 = |a: f64| a * 0.5 + 0.1;
    let v177 = f177(v176) + v88 * 0.1;
    let v178 = {
        let t = v177 * v177;
        (t + 1.0).ln()
    };
    let (v179, _u179): (f64, f64) = (v178.atan(), v89);
    let v180 = v179 * 0.5 + v90.sin() * 0.25;
    let v181;
    if v180 > 0.0 {
        v181 = v180.tanh();
    } else {
        v181 = v90 * 0.5;
    }
    let mut v182 = v181;
    'l182: for i in 0..3 {
        v182 = (v182 + w[i] * 0.5).sin();
        if v182 > 2.0 {
            break 'l182;
        }
    }
    let v183 = match n % 3 {
        0 => v182 * 0.9,
        1 => v91.cos(),
        _ => v182 - 0.1,
    };
    let h184 = [v183, v92];
    let r184 = &h184;
    let v184 = r184[0] * 0.5 + r184[1] * 0.25;
    let v185 = if v184 < v92 { v184 } else { v92 * 0.75 };
    let mut v186 = v185 * 1.5;
    while v186.abs() > 1.0 {
        v186 *= 0.5;
    }
    let f187 = |a: f64| a * 0.5 + 0.1;
    let v187 = f187(v186) + v93 * 0.1;
    let v188 = {
        let t = v187 * v187;
        (t + 1.0).ln()
    };
    let (v189, _u189): (f64, f64) = (v188.atan(), v94);
    let v190 = v189 * 0.5 + v95.sin() * 0.25;
    let v191;
    if v190 > 0.0 {
        v191 = v190.tanh();
    } else {
        v191 = v95 * 0.5;
    }
    let mut v192 = v191;
    'l192: for i in 0..3 {
        v192 = (v192 + w[i] * 0.5).sin();
        if v192 > 2.0 {
            break 'l192;
        }
    }
    let v193 = match n % 3 {
        0 => v192 * 0.9,
        1 => v96.cos(),
        _ => v192 - 0.1,
    };
    let h194 = [v193, v97];
    let r194 = &h194;
    let v194 = r194[0] * 0.5 + r194[1] * 0.25;
    let v195 = if v194 < v97 { v194 } else { v97 * 0.75 };
    let mut v196 = v195 * 1.5;
    while v196.abs() > 1.0 {
        v196 *= 0.5;
    }
    let f197 = |a: f64| a * 0.5 + 0.1;
    let v197 = f197(v196) + v98 * 0.1;
    let v198 = {
        let t = v197 * v197;
        (t + 1.0).ln()
    };
    let (v199, _u199): (f64, f64) = (v198.atan(), v99);
    let v200 = v199 * 0.5 + v100.sin() * 0.25;
    let v201;
    if v200 > 0.0 {
        v201 = v200.tanh();
    } else {
        v201 = v100 * 0.5;
    }
    let mut v202 = v201;
    'l202: for i in 0..3 {
        v202 = (v202 + w[i] * 0.5).sin();
        if v202 > 2.0 {
            break 'l202;
        }
    }
    let v203 = match n % 3 {
        0 => v202 * 0.9,
        1 => v101.cos(),
        _ => v202 - 0.1,
    };
    let h204 = [v203, v102];
    let r204 = &h204;
    let v204 = r204[0] * 0.5 + r204[1] * 0.25;
    let v205 = if v204 < v102 { v204 } else { v102 * 0.75 };
    let mut v206 = v205 * 1.5;
    while v206.abs() > 1.0 {
        v206 *= 0.5;
    }
    let f207 = |a: f64| a * 0.5 + 0.1;
    let v207 = f207(v206) + v103 * 0.1;
    let v208 = {
        let t = v207 * v207;
        (t + 1.0).ln()
    };
    let (v209, _u209): (f64, f64) = (v208.atan(), v104);
    let v210 = v209 * 0.5 + v105.sin() * 0.25;
    let v211;
    if v210 > 0.0 {
        v211 = v210.tanh();
    } else {
        v211 = v105 * 0.5;
    }
    let mut v212 = v211;
    'l212: for i in 0..3 {
        v212 = (v212 + w[i] * 0.5).sin();
        if v212 > 2.0 {
            break 'l212;
        }
    }
    let v213 = match n % 3 {
        0 => v212 * 0.9,
        1 => v106.cos(),
        _ => v212 - 0.1,
    };
    let h214 = [v213, v107];
    let r214 = &h214;
    let v214 = r214[0] * 0.5 + r214[1] * 0.25;
    let v215 = if v214 < v107 { v214 } else { v107 * 0.75 };
    let mut v216 = v215 * 1.5;
    while v216.abs() > 1.0 {
        v216 *= 0.5;
    }
    let f217 = |a: f64| a * 0.5 + 0.1;
    let v217 = f217(v216) + v108 * 0.1;
    let v218 = {
        let t = v217 * v217;
        (t + 1.0).ln()
    };
    let (v219, _u219): (f64, f64) = (v218.atan(), v109);
    let v220 = v219 * 0.5 + v110.sin() * 0.25;
    let v221;
    if v220 > 0.0 {
        v221 = v220.tanh();
    } else {
        v221 = v110 * 0.5;
    }
    let mut v222 = v221;
    'l222: for i in 0..3 {
        v222 = (v222 + w[i] * 0.5).sin();
        if v222 > 2.0 {
            break 'l222;
        }
    }
    let v223 = match n % 3 {
        0 => v222 * 0.9,
        1 => v111.cos(),
        _ => v222 - 0.1,
    };
    let h224 = [v223, v112];
    let r224 = &h224;
    let v224 = r224[0] * 0.5 + r224[1] * 0.25;
    let v225 = if v224 < v112 { v224 } else { v112 * 0.75 };
    let mut v226 = v225 * 1.5;
    while v226.abs() > 1.0 {
        v226 *= 0.5;
    }
    let f227 = |a: f64| a * 0.5 + 0.1;
    let v227 = f227(v226) + v113 * 0.1;
    let v228 = {
        let t = v227 * v227;
        (t + 1.0).ln()
    };
    let (v229, _u229): (f64, f64) = (v228.atan(), v114);
    let v230 = v229 * 0.5 + v115.sin() * 0.25;
    let v231;
    if v230 > 0.0 {
        v231 = v230.tanh();
    } else {
        v231 = v115 * 0.5;
    }
    let mut v232 = v231;
    'l232: for i in 0..3 {
        v232 = (v232 + w[i] * 0.5).sin();
        if v232 > 2.0 {
            break 'l232;
        }
    }
    let v233 = match n % 3 {
        0 => v232 * 0.9,
        1 => v116.cos(),
        _ => v232 - 0.1,
    };
    let h234 = [v233, v117];
    let r234 = &h234;
    let v234 = r234[0] * 0.5 + r234[1] * 0.25;
    let v235 = if v234 < v117 { v234 } else { v117 * 0.75 };
    let mut v236 = v235 * 1.5;
    while v236.abs() > 1.0 {
        v236 *= 0.5;
    }
    let f237 = |a: f64| a * 0.5 + 0.1;
    let v237 = f237(v236) + v118 * 0.1;
    let v238 = {
        let t = v237 * v237;
        (t + 1.0).ln()
    };
    let (v239, _u239): (f64, f64) = (v238.atan(), v119);
    let v240 = v239 * 0.5 + v120.sin() * 0.25;
    let v241;
    if v240 > 0.0 {
        v241 = v240.tanh();
    } else {
        v241 = v120 * 0.5;
    }
    let mut v242 = v241;
    'l242: for i in 0..3 {
        v242 = (v242 + w[i] * 0.5).sin();
        if v242 > 2.0 {
            break 'l242;
        }
    }
    let v243 = match n % 3 {
        0 => v242 * 0.9,
        1 => v121.cos(),
        _ => v242 - 0.1,
    };
    let h244 = [v243, v122];
    let r244 = &h244;
    let v244 = r244[0] * 0.5 + r244[1] * 0.25;
    let v245 = if v244 < v122 { v244 } else { v122 * 0.75 };
    let mut v246 = v245 * 1.5;
    while v246.abs() > 1.0 {
        v246 *= 0.5;
    }
    let f247 = |a: f64| a * 0.5 + 0.1;
    let v247 = f247(v246) + v123 * 0.1;
    let v248 = {
        let t = v247 * v247;
        (t + 1.0).ln()
    };
    let (v249, _u249): (f64, f64) = (v248.atan(), v124);
    let v250 = v249 * 0.5 + v125.sin() * 0.25;
    let v251;
    if v250 > 0.0 {
        v251 = v250.tanh();
    } else {
        v251 = v125 * 0.5;
    }
    let mut v252 = v251;
    'l252: for i in 0..3 {
        v252 = (v252 + w[i] * 0.5).sin();
        if v252 > 2.0 {
            break 'l252;
        }
    }
    let v253 = match n % 3 {
        0 => v252 * 0.9,
        1 => v126.cos(),
        _ => v252 - 0.1,
    };
    let h254 = [v253, v127];
    let r254 = &h254;
    let v254 = r254[0] * 0.5 + r254[1] * 0.25;
    let v255 = if v254 < v127 { v254 } else { v127 * 0.75 };
    let mut v256 = v255 * 1.5;
    while v256.abs() > 1.0 {
        v256 *= 0.5;
    }
    let f257 = |a: f64| a * 0.5 + 0.1;
    let v257 = f257(v256) + v128 * 0.1;
    let v258 = {
        let t = v257 * v257;
        (t + 1.0).ln()
    };
    let (v259, _u259): (f64, f64) = (v258.atan(), v129);
    let v260 = v259 * 0.5 + v130.sin() * 0.25;
    let v261;
    if v260 > 0.0 {
        v261 = v260.tanh();
    } else {
        v261 = v130 * 0.5;
    }
    let mut v262 = v261;
    'l262: for i in 0..3 {
        v262 = (v262 + w[i] * 0.5).sin();
        if v262 > 2.0 {
            break 'l262;
        }
    }
    let v263 = match n % 3 {
        0 => v262 * 0.9,
        1 => v131.cos(),
        _ => v262 - 0.1,
    };
    let h264 = [v263, v132];
    let r264 = &h264;
    let v264 = r264[0] * 0.5 + r264[1] * 0.25;
    let v265 = if v264 < v132 { v264 } else { v132 * 0.75 };
    let mut v266 = v265 * 1.5;
    while v266.abs() > 1.0 {
        v266 *= 0.5;
    }
    let f267 = |a: f64| a * 0.5 + 0.1;
    let v267 = f267(v266) + v133 * 0.1;
    let v268 = {
        let t = v267 * v267;
        (t + 1.0).ln()
    };
    let (v269, _u269): (f64, f64) = (v268.atan(), v134);
    let v270 = v269 * 0.5 + v135.sin() * 0.25;
    let v271;
    if v270 > 0.0 {
        v271 = v270.tanh();
    } else {
        v271 = v135 * 0.5;
    }
    let mut v272 = v271;
    'l272: for i in 0..3 {
        v272 = (v272 + w[i] * 0.5).sin();
        if v272 > 2.0 {
            break 'l272;
        }
    }
    let v273 = match n % 3 {
        0 => v272 * 0.9,
        1 => v136.cos(),
        _ => v272 - 0.1,
    };
    let h274 = [v273, v137];
    let r274 = &h274;
    let v274 = r274[0] * 0.5 + r274[1] * 0.25;
    let v275 = if v274 < v137 { v274 } else { v137 * 0.75 };
    let mut v276 = v275 * 1.5;
    while v276.abs() > 1.0 {
        v276 *= 0.5;
    }
    let f277 = |a: f64| a * 0.5 + 0.1;
    let v277 = f277(v276) + v138 * 0.1;
    let v278 = {
        let t = v277 * v277;
        (t + 1.0).ln()
    };
    let (v279, _u279): (f64, f64) = (v278.atan(), v139);
    let v280 = v279 * 0.5 + v140.sin() * 0.25;
    let v281;
    if v280 > 0.0 {
        v281 = v280.tanh();
    } else {
        v281 = v140 * 0.5;
    }
    let mut v282 = v281;
    'l282: for i in 0..3 {
        v282 = (v282 + w[i] * 0.5).sin();
        if v282 > 2.0 {
            break 'l282;
        }
    }
    let v283 = match n % 3 {
        0 => v282 * 0.9,
        1 => v141.cos(),
        _ => v282 - 0.1,
    };
    let h284 = [v283, v142];
    let r284 = &h284;
    let v284 = r284[0] * 0.5 + r284[1] * 0.25;
    let v285 = if v284 < v142 { v284 } else { v142 * 0.75 };
    let mut v286 = v285 * 1.5;
    while v286.abs() > 1.0 {
        v286 *= 0.5;
    }
    let f287 = |a: f64| a * 0.5 + 0.1;
    let v287 = f287(v286) + v143 * 0.1;
    let v288 = {
        let t = v287 * v287;
        (t + 1.0).ln()
    };
    let (v289, _u289): (f64, f64) = (v288.atan(), v144);
    let v290 = v289 * 0.5 + v145.sin() * 0.25;
    let v291;
    if v290 > 0.0 {
        v291 = v290.tanh();
    } else {
        v291 = v145 * 0.5;
    }
    let mut v292 = v291;
    'l292: for i in 0..3 {
        v292 = (v292 + w[i] * 0.5).sin();
        if v292 > 2.0 {
            break 'l292;
        }
    }
    let v293 = match n % 3 {
        0 => v292 * 0.9,
        1 => v146.cos(),
        _ => v292 - 0.1,
    };
    let h294 = [v293, v147];
    let r294 = &h294;
    let v294 = r294[0] * 0.5 + r294[1] * 0.25;
    let v295 = if v294 < v147 { v294 } else { v147 * 0.75 };
    let mut v296 = v295 * 1.5;
    while v296.abs() > 1.0 {
        v296 *= 0.5;
    }
    let f297 = |a: f64| a * 0.5 + 0.1;
    let v297 = f297(v296) + v148 * 0.1;
    let v298 = {
        let t = v297 * v297;
        (t + 1.0).ln()
    };
    let (v299, _u299): (f64, f64) = (v298.atan(), v149);
    v299 + v150 * 0.5
}

#[test]
fn a_long_function_of_loops_branches_and_borrows_is_right() {
    for (x, y, w) in [(0.3, -0.7, [0.5, -0.2, 0.9]), (1.1, 0.4, [-0.3, 0.8, 0.1])] {
        for n in 0..3 {
            let (_, (gx, gy, gw)) = mixed_grad(x, y, &w, n);
            let f = |p: &[f64]| mixed(p[0], p[1], &[p[2], p[3], p[4]], n);
            let at = [x, y, w[0], w[1], w[2]];
            let claimed = [gx, gy, gw[0], gw[1], gw[2]];
            fd::agrees("mixed", &f, &at, &claimed, 1e-6);
        }
    }
}
