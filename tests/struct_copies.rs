//! A local copy of a tracked struct, changed field by field, as a
//! simulation keeps its state: `let mut s = s0.clone();` then `s.vel[k] +=
//! dt * a;` in a loop, the loss read off `s` at the end. Also the copy
//! made by `*s0` of a `Copy` struct, with its type written, of a method's
//! `self`, with a struct nested inside and a field no knob, in a generic
//! function; each gradient against central finite differences at several
//! points, in `f64` and `f32`.
#![deny(warnings)]

mod fd;

macro_rules! programs {
    ($m:ident, $t:ty) => {
        pub mod $m {
            use mica::tape;

            #[derive(Clone, Debug, mica::Knob)]
            pub struct State {
                pub pos: [$t; 2],
                pub vel: Vec<$t>,
                pub drag: $t,
            }

            /// A projectile with quadratic drag: the distance of its end
            /// from a target.
            #[tape]
            pub fn flight(#[tracked] s0: &State, target: [$t; 2], steps: usize) -> $t {
                let dt = 0.05;
                let mut s = s0.clone();
                for _ in 0..steps {
                    let speed = (s.vel[0].powi(2) + s.vel[1].powi(2)).sqrt();
                    for k in 0..2 {
                        let gravity = if k == 1 { 9.81 } else { 0.0 };
                        let a = -s.drag * speed * s.vel[k] - gravity;
                        s.vel[k] += dt * a;
                        s.pos[k] += dt * s.vel[k];
                    }
                    s.drag *= 0.99;
                }
                (s.pos[0] - target[0]).powi(2) + (s.pos[1] - target[1]).powi(2)
            }

            #[derive(Clone, Copy, Debug, mica::Knob)]
            pub struct Spring {
                pub k: $t,
                pub x: $t,
                pub v: $t,
                #[knob(skip)]
                pub steps: usize,
            }

            /// `*s0` of a `Copy` struct, its type written; a skipped field
            /// counted down in the copy.
            #[tape]
            pub fn spring(#[tracked] s0: &Spring) -> $t {
                let mut s: Spring = *s0;
                let mut energy = 0.0;
                while s.steps > 0 {
                    let a = -s.k * s.x;
                    s.v += 0.1 * a;
                    s.x += 0.1 * s.v;
                    energy += 0.5 * s.v * s.v + 0.5 * s.k * s.x * s.x;
                    s.steps -= 1;
                }
                energy
            }

            #[derive(Clone, Debug, mica::Knob)]
            pub struct Body {
                pub at: Spring,
                pub mass: $t,
            }

            #[tape]
            impl Body {
                /// A copy of `self`, a struct nested in it.
                pub fn settle(#[tracked] &self, c: $t) -> $t {
                    let mut b = self.clone();
                    for _ in 0..3 {
                        b.at.x = (b.at.x * c + b.mass).tanh();
                        b.mass *= b.at.k;
                    }
                    b.at.x * b.mass + b.at.v
                }
            }
        }
    };
}

programs!(p64, f64);
programs!(p32, f32);

/// Generic over its float.
#[mica::tape]
pub mod generic {
    use mica::Real;

    #[derive(Clone, Debug, mica::Knob)]
    pub struct Pair<T> {
        pub a: [T; 2],
        pub b: T,
    }

    pub fn walk<T: Real>(#[tracked] p: &Pair<T>, n: usize) -> T {
        let mut q = p.clone();
        for _ in 0..n {
            q.a[0] = (q.a[0] * q.b + q.a[1]).sin();
            q.b = q.b * T::from(0.9).unwrap() + q.a[0];
        }
        q.a[0] + q.b * q.b
    }
}

macro_rules! checks {
    ($name:ident, $m:ident, $t:ty, $tol:expr) => {
        #[test]
        fn $name() {
            use $m as p;
            let points: [[$t; 5]; 3] = [
                [0.1, 0.2, 3.0, 4.0, 0.05],
                [-0.3, 0.0, 5.0, 2.5, 0.1],
                [0.0, 0.4, 2.0, 6.0, 0.02],
            ];
            for at in points {
                let state = |v: &[$t]| p::State {
                    pos: [v[0], v[1]],
                    vel: vec![v[2], v[3]],
                    drag: v[4],
                };
                let (_, g) = p::flight_grad(&state(&at), [1.5, 0.5], 20);
                let claimed = [g.pos[0], g.pos[1], g.vel[0], g.vel[1], g.drag];
                let f = |v: &[$t]| p::flight(&state(v), [1.5, 0.5], 20);
                fd::agrees("flight", &f, &at, &claimed, $tol);

                let spring = |v: &[$t]| p::Spring {
                    k: v[0],
                    x: v[1],
                    v: v[2],
                    steps: 7,
                };
                let at3 = [at[2] * 0.5, at[0] + 1.0, at[1]];
                let (_, g) = p::spring_grad(&spring(&at3));
                let f = |v: &[$t]| p::spring(&spring(v));
                fd::agrees("spring", &f, &at3, &[g.k, g.x, g.v], $tol);

                let body = |v: &[$t]| p::Body {
                    at: spring(&v[..3]),
                    mass: v[3],
                };
                let at4 = [at[4] * 10.0, at[0], at[1] - 0.2, 0.7];
                let (_, g) = body(&at4).settle_grad(0.8);
                let claimed = [g.at.k, g.at.x, g.at.v, g.mass];
                let f = |v: &[$t]| body(v).settle(0.8);
                fd::agrees("settle", &f, &at4, &claimed, $tol);

                let pair = |v: &[$t]| generic::Pair {
                    a: [v[0], v[1]],
                    b: v[2],
                };
                let at3 = [at[0], at[1], at[4] * 10.0];
                let (_, g) = generic::walk_grad(&pair(&at3), 4);
                let f = |v: &[$t]| generic::walk(&pair(v), 4);
                fd::agrees("walk", &f, &at3, &[g.a[0], g.a[1], g.b], $tol);
            }
        }
    };
}

checks!(copies_f64, p64, f64, 1e-6);
checks!(copies_f32, p32, f32, 3e-2);
