//! Forward-mode dual numbers: the second oracle of the differential test.
//!
//! This file is not a module of the test; it is copied verbatim into every
//! generated crate (`src/dual.rs`). It shares nothing with Mica: each slope is
//! written here from the calculus, and each value is computed with the very
//! same float operation the plain function uses, so values are bit-identical.
//! One macro stamps the numbers for `f64` (`Dual`, `cst`, …) and for `f32`
//! (`Dual32`, `cst32`, …: the slope too is carried in `f32`).
//!
//! Every operation with a kink or a jump notes how far its argument is from
//! it (`note`); the harness skips the finite-difference oracle at points
//! closer than 1e-3 (`f32`: 0.1) to a kink, a jump or a flipping branch.
#![allow(dead_code)]

use std::cell::Cell;

thread_local! {
    static MARGIN: Cell<f64> = const { Cell::new(f64::INFINITY) };
}

/// Records the distance of some evaluation from a kink or a branch flip.
pub fn note(margin: f64) {
    MARGIN.with(|m| m.set(m.get().min(margin.abs())));
}

/// Forgets the recorded margins.
pub fn reset_margin() {
    MARGIN.with(|m| m.set(f64::INFINITY));
}

/// The smallest margin since the last reset.
pub fn margin() -> f64 {
    MARGIN.with(|m| m.get())
}

/// The dual numbers over one float type `$t`, in a module of their own: the
/// same text serves `f64` and `f32` programs.
macro_rules! dual_numbers {
    ($m:ident, $t:ident) => {
        pub mod $m {
            use super::note;
            use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

            /// A value and its slope along one input direction.
            #[derive(Clone, Copy, Debug, PartialEq)]
            pub struct Dual {
                pub v: $t,
                pub d: $t,
            }

            /// A constant.
            pub fn cst(v: $t) -> Dual {
                Dual { v, d: 0.0 }
            }

            /// `a > b`, noting the margin.
            pub fn gt(a: Dual, b: Dual) -> bool {
                note((a.v - b.v) as f64);
                a.v > b.v
            }

            /// `a < b`, noting the margin.
            pub fn lt(a: Dual, b: Dual) -> bool {
                note((a.v - b.v) as f64);
                a.v < b.v
            }

            /// `detach` makes Mica's slope differ from the true one on
            /// purpose: finite differences do not apply (margin 0).
            pub fn detach(x: Dual) -> Dual {
                note(0.0);
                cst(x.v)
            }

            pub fn sigmoid(x: Dual) -> Dual {
                let y = if x.v >= 0.0 {
                    1.0 / (1.0 + (-x.v).exp())
                } else {
                    let e = x.v.exp();
                    e / (1.0 + e)
                };
                Dual {
                    v: y,
                    d: x.d * y * (1.0 - y),
                }
            }

            pub fn relu(x: Dual) -> Dual {
                note(x.v as f64);
                if x.v > 0.0 {
                    x
                } else {
                    cst(0.0)
                }
            }

            pub fn softplus(x: Dual) -> Dual {
                let y = x.v.max(0.0) + (-x.v.abs()).exp().ln_1p();
                Dual {
                    v: y,
                    d: x.d / (1.0 + (-x.v).exp()),
                }
            }

            impl Add for Dual {
                type Output = Dual;
                fn add(self, o: Dual) -> Dual {
                    Dual {
                        v: self.v + o.v,
                        d: self.d + o.d,
                    }
                }
            }

            impl Sub for Dual {
                type Output = Dual;
                fn sub(self, o: Dual) -> Dual {
                    Dual {
                        v: self.v - o.v,
                        d: self.d - o.d,
                    }
                }
            }

            impl Mul for Dual {
                type Output = Dual;
                fn mul(self, o: Dual) -> Dual {
                    Dual {
                        v: self.v * o.v,
                        d: self.d * o.v + self.v * o.d,
                    }
                }
            }

            impl Div for Dual {
                type Output = Dual;
                fn div(self, o: Dual) -> Dual {
                    Dual {
                        v: self.v / o.v,
                        d: (self.d * o.v - self.v * o.d) / (o.v * o.v),
                    }
                }
            }

            impl Neg for Dual {
                type Output = Dual;
                fn neg(self) -> Dual {
                    Dual {
                        v: -self.v,
                        d: -self.d,
                    }
                }
            }

            impl AddAssign for Dual {
                fn add_assign(&mut self, o: Dual) {
                    *self = *self + o;
                }
            }

            impl SubAssign for Dual {
                fn sub_assign(&mut self, o: Dual) {
                    *self = *self - o;
                }
            }

            impl MulAssign for Dual {
                fn mul_assign(&mut self, o: Dual) {
                    *self = *self * o;
                }
            }

            impl DivAssign for Dual {
                fn div_assign(&mut self, o: Dual) {
                    *self = *self / o;
                }
            }

            const LN2: $t = std::$t::consts::LN_2;
            const LN10: $t = std::$t::consts::LN_10;

            impl Dual {
                fn chain(self, v: $t, slope: $t) -> Dual {
                    Dual {
                        v,
                        d: self.d * slope,
                    }
                }
                pub fn sqrt(self) -> Dual {
                    let y = self.v.sqrt();
                    self.chain(y, 0.5 / y)
                }
                pub fn cbrt(self) -> Dual {
                    let y = self.v.cbrt();
                    self.chain(y, 1.0 / (3.0 * y * y))
                }
                pub fn exp(self) -> Dual {
                    let y = self.v.exp();
                    self.chain(y, y)
                }
                pub fn exp2(self) -> Dual {
                    let y = self.v.exp2();
                    self.chain(y, y * LN2)
                }
                pub fn exp_m1(self) -> Dual {
                    self.chain(self.v.exp_m1(), self.v.exp())
                }
                pub fn ln(self) -> Dual {
                    self.chain(self.v.ln(), 1.0 / self.v)
                }
                pub fn log2(self) -> Dual {
                    self.chain(self.v.log2(), 1.0 / (self.v * LN2))
                }
                pub fn log10(self) -> Dual {
                    self.chain(self.v.log10(), 1.0 / (self.v * LN10))
                }
                pub fn ln_1p(self) -> Dual {
                    self.chain(self.v.ln_1p(), 1.0 / (1.0 + self.v))
                }
                pub fn log(self, b: Dual) -> Dual {
                    let (lx, lb) = (self.v.ln(), b.v.ln());
                    Dual {
                        v: self.v.log(b.v),
                        d: self.d / (self.v * lb) - lx * b.d / (b.v * lb * lb),
                    }
                }
                pub fn powi(self, n: i32) -> Dual {
                    self.chain(self.v.powi(n), n as $t * self.v.powi(n - 1))
                }
                pub fn powf(self, e: Dual) -> Dual {
                    let y = self.v.powf(e.v);
                    Dual {
                        v: y,
                        d: self.d * e.v * self.v.powf(e.v - 1.0) + e.d * y * self.v.ln(),
                    }
                }
                pub fn sin(self) -> Dual {
                    self.chain(self.v.sin(), self.v.cos())
                }
                pub fn cos(self) -> Dual {
                    self.chain(self.v.cos(), -self.v.sin())
                }
                pub fn tan(self) -> Dual {
                    let c = self.v.cos();
                    self.chain(self.v.tan(), 1.0 / (c * c))
                }
                pub fn asin(self) -> Dual {
                    self.chain(self.v.asin(), 1.0 / (1.0 - self.v * self.v).sqrt())
                }
                pub fn acos(self) -> Dual {
                    self.chain(self.v.acos(), -1.0 / (1.0 - self.v * self.v).sqrt())
                }
                pub fn atan(self) -> Dual {
                    self.chain(self.v.atan(), 1.0 / (1.0 + self.v * self.v))
                }
                pub fn atan2(self, x: Dual) -> Dual {
                    let r = self.v * self.v + x.v * x.v;
                    Dual {
                        v: self.v.atan2(x.v),
                        d: (x.v * self.d - self.v * x.d) / r,
                    }
                }
                pub fn sinh(self) -> Dual {
                    self.chain(self.v.sinh(), self.v.cosh())
                }
                pub fn cosh(self) -> Dual {
                    self.chain(self.v.cosh(), self.v.sinh())
                }
                pub fn tanh(self) -> Dual {
                    let c = self.v.cosh();
                    self.chain(self.v.tanh(), 1.0 / (c * c))
                }
                pub fn asinh(self) -> Dual {
                    self.chain(self.v.asinh(), 1.0 / (self.v * self.v + 1.0).sqrt())
                }
                pub fn acosh(self) -> Dual {
                    self.chain(self.v.acosh(), 1.0 / (self.v * self.v - 1.0).sqrt())
                }
                pub fn atanh(self) -> Dual {
                    self.chain(self.v.atanh(), 1.0 / (1.0 - self.v * self.v))
                }
                pub fn abs(self) -> Dual {
                    note(self.v as f64);
                    let s = if self.v > 0.0 {
                        1.0
                    } else if self.v < 0.0 {
                        -1.0
                    } else {
                        0.0
                    };
                    self.chain(self.v.abs(), s)
                }
                pub fn min(self, o: Dual) -> Dual {
                    note((self.v - o.v) as f64);
                    // as `f64::min`: a NaN gives way to the other value
                    let d = if o.v.is_nan() || self.v <= o.v { self.d } else { o.d };
                    Dual {
                        v: self.v.min(o.v),
                        d,
                    }
                }
                pub fn max(self, o: Dual) -> Dual {
                    note((self.v - o.v) as f64);
                    let d = if o.v.is_nan() || self.v >= o.v { self.d } else { o.d };
                    Dual {
                        v: self.v.max(o.v),
                        d,
                    }
                }
                pub fn clamp(self, lo: Dual, hi: Dual) -> Dual {
                    note((self.v - lo.v) as f64);
                    note((self.v - hi.v) as f64);
                    let d = if self.v < lo.v {
                        lo.d
                    } else if self.v > hi.v {
                        hi.d
                    } else {
                        self.d
                    };
                    Dual {
                        v: self.v.clamp(lo.v, hi.v),
                        d,
                    }
                }
                pub fn hypot(self, o: Dual) -> Dual {
                    let h = self.v.hypot(o.v);
                    Dual {
                        v: h,
                        d: (self.v * self.d + o.v * o.d) / h,
                    }
                }
                pub fn mul_add(self, a: Dual, b: Dual) -> Dual {
                    Dual {
                        v: self.v.mul_add(a.v, b.v),
                        d: self.d * a.v + self.v * a.d + b.d,
                    }
                }
                pub fn recip(self) -> Dual {
                    self.chain(self.v.recip(), -1.0 / (self.v * self.v))
                }
                fn step(self, v: $t, margin: $t) -> Dual {
                    note(margin as f64);
                    cst(v)
                }
                pub fn floor(self) -> Dual {
                    self.step(self.v.floor(), self.v - self.v.round())
                }
                pub fn ceil(self) -> Dual {
                    self.step(self.v.ceil(), self.v - self.v.round())
                }
                pub fn trunc(self) -> Dual {
                    self.step(self.v.trunc(), self.v - self.v.round())
                }
                pub fn round(self) -> Dual {
                    self.step(self.v.round(), self.v - self.v.floor() - 0.5)
                }
                pub fn signum(self) -> Dual {
                    self.step(self.v.signum(), self.v)
                }
                pub fn round_ties_even(self) -> Dual {
                    self.step(self.v.round_ties_even(), self.v - self.v.floor() - 0.5)
                }
                pub fn div_euclid(self, o: Dual) -> Dual {
                    let q = self.v / o.v;
                    self.step(self.v.div_euclid(o.v), (q - q.round()) * o.v)
                }
                pub fn fract(self) -> Dual {
                    note((self.v - self.v.round()) as f64);
                    Dual {
                        v: self.v.fract(),
                        d: self.d,
                    }
                }
                pub fn copysign(self, o: Dual) -> Dual {
                    note(self.v as f64);
                    note(o.v as f64);
                    let d = if self.v.is_sign_negative() == o.v.is_sign_negative() {
                        self.d
                    } else {
                        -self.d
                    };
                    Dual {
                        v: self.v.copysign(o.v),
                        d,
                    }
                }
                pub fn midpoint(self, o: Dual) -> Dual {
                    Dual {
                        v: self.v.midpoint(o.v),
                        d: (self.d + o.d) * 0.5,
                    }
                }
                pub fn rem_euclid(self, o: Dual) -> Dual {
                    let q = self.v / o.v;
                    note(((q - q.round()) * o.v) as f64);
                    let v = self.v.rem_euclid(o.v);
                    Dual {
                        v,
                        d: self.d - o.d * ((self.v - v) / o.v).round(),
                    }
                }
            }
        }
    };
}

dual_numbers!(d64, f64);
dual_numbers!(d32, f32);

pub use d32::{
    cst as cst32, detach as detach32, gt as gt32, lt as lt32, relu as relu32, sigmoid as sigmoid32,
    softplus as softplus32, Dual as Dual32,
};
pub use d64::{cst, detach, gt, lt, relu, sigmoid, softplus, Dual};

/// An `f32` point from an `f64` one (the generator makes its coordinates
/// exact in `f32`).
pub fn to32(p: &[Dual]) -> Vec<Dual32> {
    p.iter()
        .map(|x| Dual32 {
            v: x.v as f32,
            d: x.d as f32,
        })
        .collect()
}

/// An `f64` dual number holding an `f32` one exactly.
pub fn from32(x: Dual32) -> Dual {
    Dual {
        v: x.v as f64,
        d: x.d as f64,
    }
}
