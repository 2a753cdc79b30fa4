//! One function for every float type (SPEC 3.5): `#[tape]` functions
//! generic over their float, written as generic numeric Rust is written —
//! against `num_traits::Float` alone, or against `mica::Real` — with
//! constants the num-traits way (`T::from(0.5).unwrap()`, `T::one()`),
//! in every form: free functions, calls between them, a `where` clause,
//! const generics beside the float, the window form, a `#[tape] mod` whose
//! helpers are generic too, and a `#[tape] impl<T: Float>` of a model
//! struct. Each is used at `f32` and at `f64`, checked against central
//! finite differences at several points and against its plain twin
//! (`#[tape(plain)]`), and one against slopes by hand; a generic helper
//! leaves early with an array.
#![deny(warnings)]

mod fd;

macro_rules! programs {
    ($m:ident, $($mode:ident)?) => {
        pub mod $m {
            use mica::tape;
            use num_traits::Float;

            /// `Σ k (xᵢ − ½)² + max(x₀, 1)³`, written against `Float` alone.
            #[tape$(($mode))?]
            pub fn spring<T: Float>(#[tracked] x: &[T], k: T) -> T {
                let half = T::from(0.5).unwrap();
                let mut e = T::zero();
                for i in 0..x.len() {
                    let d = x[i] - half;
                    e = e + k * d * d;
                }
                e + T::powi(x[0].max(T::one()), 3)
            }

            /// Chains, a fold, extremes, a path spelling and a call, against
            /// `mica::Real`.
            #[tape$(($mode))?]
            pub fn chains<T: mica::Real>(#[tracked] w: &[T], #[tracked] s: T) -> T {
                let sq: T = w.iter().map(|&v| v * v).sum();
                let soft = w.iter().map(|&v| (v * s).exp()).sum::<T>().ln();
                let top = w.iter().cloned().fold(T::neg_infinity(), T::max);
                let low = w
                    .iter()
                    .map(|&v| v * s)
                    .min_by(|a, b| a.partial_cmp(b).unwrap())
                    .unwrap();
                let high = *w.iter().max_by(|a, b| a.partial_cmp(b).unwrap()).unwrap();
                let waves: Vec<T> = w.iter().map(|v| T::sin(*v)).collect();
                let mut t = T::zero();
                t += waves[0] * s + spring(w, T::from(1.5).unwrap());
                sq + soft + top + t + low * high
            }

            /// A `where` clause and a const generic beside the float.
            #[tape$(($mode))?]
            pub fn fixed<T, const N: usize>(#[tracked] x: &[T; N], #[tracked] y: T) -> T
            where
                T: Float,
            {
                let mut p = T::one();
                for v in x.iter() {
                    p = p * (*v * y).tanh();
                }
                p + T::atan2(y, x[0])
            }

            /// The window form, generic.
            #[tape]
            pub fn window<T: Float>(a: T, b: T) -> (T, T, T) {
                #[tracked]
                let a = a;
                #[tracked]
                let b = b;
                tape! {
                    let y = a * b.sin() + (a / b).exp();
                }
                backward!(y);
                (y, gradient!(a), gradient!(b))
            }

            /// A block whose helpers are generic too.
            #[tape$(($mode))?]
            pub mod physics {
                use num_traits::Float;

                pub fn dot<T: Float>(a: &[T; 3], b: &[T; 3]) -> T {
                    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
                }
                pub fn sub<T: Float>(a: &[T; 3], b: &[T; 3]) -> [T; 3] {
                    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
                }
                /// a helper that leaves early with an array (found by
                /// the long run: its carrier started at a literal `0.0`)
                pub fn halved<T: Float>(v: [T; 3], limit: T) -> [T; 3] {
                    let mut t = v[0];
                    for i in 0..3 {
                        if t < limit {
                            return [t, v[1], v[i]];
                        }
                        t = t * T::from(0.5).unwrap();
                    }
                    [t, t, v[2]]
                }
                /// ½ k |x − rest|² + cos of the first coordinate
                pub fn energy<T: Float>(#[tracked] x: &[T; 3], rest: &[T; 3], k: T) -> T {
                    let d = sub(x, rest);
                    let h = halved(*x, T::from(0.2).unwrap());
                    T::from(0.5).unwrap() * k * dot(&d, &d) + x[0].cos() + h[0] * h[2]
                }
            }

            /// A model struct generic over its float; its `impl` is the block.
            pub struct Pendulum<T> {
                pub length: T,
                pub gravity: T,
            }

            #[tape$(($mode))?]
            impl<T: Float> Pendulum<T> {
                fn omega(&self) -> T {
                    (self.gravity / self.length).sqrt()
                }
                /// the angle after `t` of a small swing from `theta0`
                pub fn angle(&self, #[tracked] theta0: T, #[tracked] t: T) -> T {
                    theta0 * (self.omega() * t).cos()
                }
            }
        }
    };
}

programs!(p,);
programs!(q, plain);

macro_rules! check_all {
    ($t:ty, $tol:expr, $rel:expr) => {{
        let (agree, same) = fd::checks::<$t>($tol, $rel);
        let points: [[$t; 3]; 3] = [[0.3, -0.7, 0.45], [1.4, 0.25, -0.8], [-0.55, 0.9, 0.6]];
        for x in points {
            let k: $t = 1.5;
            let (_, g) = p::spring_grad(&x, k);
            same(&g, &q::spring_grad(&x, k).1, "spring");
            agree("spring", &|v| p::spring(v, k), &x, &g);
            // by hand: 2k (xᵢ − ½), and 3 x₀² on x₀ > 1
            let hand: Vec<$t> = (0..3)
                .map(|i| {
                    let cube = if i == 0 && x[0] > 1.0 {
                        3.0 * x[0] * x[0]
                    } else {
                        0.0
                    };
                    2.0 * k * (x[i] - 0.5) + cube
                })
                .collect();
            same(&g, &hand, "spring by hand");

            let s: $t = 0.7;
            let (_, (gw, gs)) = p::chains_grad(&x, s);
            let (_, (hw, hs)) = q::chains_grad(&x, s);
            same(&gw, &hw, "chains");
            same(&[gs], &[hs], "chains, s");
            let all = [x[0], x[1], x[2], s];
            let mut claimed = gw.clone();
            claimed.push(gs);
            agree("chains", &|v| p::chains(&v[..3], v[3]), &all, &claimed);

            let y: $t = 0.8;
            let (_, (gx, gy)) = p::fixed_grad(&x, y);
            let (_, (hx, hy)) = q::fixed_grad(&x, y);
            same(&gx, &hx, "fixed");
            same(&[gy], &[hy], "fixed, y");
            agree(
                "fixed",
                &|v| p::fixed(&[v[0], v[1], v[2]], v[3]),
                &[x[0], x[1], x[2], y],
                &[gx[0], gx[1], gx[2], gy],
            );

            let (_, da, db) = p::window(x[0], 1.0 + x[1].abs());
            agree(
                "window",
                &|v| p::window(v[0], v[1]).0,
                &[x[0], 1.0 + x[1].abs()],
                &[da, db],
            );

            let rest: [$t; 3] = [0.1, 0.2, -0.3];
            let (_, g) = p::physics::energy_grad(&x, &rest, k);
            same(&g, &q::physics::energy_grad(&x, &rest, k).1, "physics");
            agree(
                "physics",
                &|v| p::physics::energy(&[v[0], v[1], v[2]], &rest, k),
                &x,
                &g,
            );

            let pendulum = p::Pendulum {
                length: 1.2,
                gravity: 9.81,
            };
            let twin = q::Pendulum {
                length: 1.2,
                gravity: 9.81,
            };
            let (theta0, t) = (x[0], 1.0 + x[2]);
            let (_, (a, b)) = pendulum.angle_grad(theta0, t);
            let (_, (c, d)) = twin.angle_grad(theta0, t);
            same(&[a, b], &[c, d], "pendulum");
            agree(
                "pendulum",
                &|v| pendulum.angle(v[0], v[1]),
                &[theta0, t],
                &[a, b],
            );

            // `_backward` adds seed × slope into what the slots hold
            let mut slot: [$t; 3] = [1.0, -1.0, 0.5];
            let (_, g) = p::physics::energy_grad(&x, &rest, k);
            p::physics::energy_backward(&x, &rest, k, 2.0, &mut slot);
            same(
                &slot,
                &[1.0 + 2.0 * g[0], -1.0 + 2.0 * g[1], 0.5 + 2.0 * g[2]],
                "physics, backward",
            );
        }
    }};
}

#[test]
fn generic_functions_agree_with_finite_differences_hand_slopes_and_plain_adjoints_at_f64_and_f32() {
    check_all!(f64, 1e-6, 1e-12);
    check_all!(f32, 2e-2, 1e-5);
}

/// `#[tape]` on a method of an `impl` that is not `#[tape]`, generic over
/// `T: num_traits::Float` alone: the companions add `T: mica::Real`.
pub struct Quad<T> {
    pub a: T,
}

impl<T: num_traits::Float> Quad<T> {
    #[mica::tape]
    pub fn energy(&self, #[tracked] x: &[T; 2]) -> T {
        self.a * x[0] * x[0] + x[1].sin() * x[0]
    }
}

#[test]
fn a_tape_method_of_a_generic_impl_without_the_attribute() {
    for x in [[0.5, 0.25], [-1.5, 2.0]] {
        let q = Quad { a: 2.0f64 };
        let (v, g) = q.energy_grad(&x);
        assert_eq!(v, q.energy(&x));
        // 2a·x₀ + sin x₁, x₀·cos x₁
        let want = [2.0 * 2.0 * x[0] + x[1].sin(), x[0] * x[1].cos()];
        assert!((g[0] - want[0]).abs() < 1e-12 && (g[1] - want[1]).abs() < 1e-12);
        let q = Quad { a: 2.0f32 };
        let x = x.map(|v| v as f32);
        let (_, g) = q.energy_grad(&x);
        let want = [4.0 * x[0] + x[1].sin(), x[0] * x[1].cos()];
        assert!((g[0] - want[0]).abs() < 1e-5 && (g[1] - want[1]).abs() < 1e-5);
    }
}
