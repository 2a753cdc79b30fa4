//! Values read as one flat list of floats, in order: what `_jacobian`
//! numbers its rows and columns by (a float, arrays, slices and `Vec`s of
//! them, nested, tuples of those, and `#[derive(Knob)]` structs, field by
//! field in declaration order).

use crate::Real;

/// A value read as a flat list of floats.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be numbered as a list of floats for a Jacobian",
    label = "`_jacobian` reads floats, arrays, slices and `Vec`s of them, and tuples of those",
    note = "a struct numbers its floats when it derives `mica::Knob`"
)]
pub trait Flat {
    /// The float type of the elements.
    type F: Real;
    /// How many floats the value holds.
    fn flat_len(&self) -> usize;
    /// Appends the floats, in order.
    fn flat_push(&self, out: &mut Vec<Self::F>);
    /// Sets float number `k` to `v`.
    fn flat_set(&mut self, k: usize, v: Self::F);
}

macro_rules! float {
    ($t:ty) => {
        impl Flat for $t {
            type F = $t;
            #[inline]
            fn flat_len(&self) -> usize {
                1
            }
            #[inline]
            fn flat_push(&self, out: &mut Vec<$t>) {
                out.push(*self);
            }
            #[inline]
            fn flat_set(&mut self, _k: usize, v: $t) {
                *self = v;
            }
        }
    };
}
float!(f32);
float!(f64);

fn set_in<E: Flat>(items: &mut [E], mut k: usize, v: E::F) {
    for e in items {
        let n = e.flat_len();
        if k < n {
            return e.flat_set(k, v);
        }
        k -= n;
    }
}

impl<E: Flat> Flat for [E] {
    type F = E::F;
    fn flat_len(&self) -> usize {
        self.iter().map(Flat::flat_len).sum()
    }
    fn flat_push(&self, out: &mut Vec<E::F>) {
        for e in self {
            e.flat_push(out);
        }
    }
    fn flat_set(&mut self, k: usize, v: E::F) {
        set_in(self, k, v)
    }
}

impl<E: Flat, const N: usize> Flat for [E; N] {
    type F = E::F;
    fn flat_len(&self) -> usize {
        self[..].flat_len()
    }
    fn flat_push(&self, out: &mut Vec<E::F>) {
        self[..].flat_push(out)
    }
    fn flat_set(&mut self, k: usize, v: E::F) {
        set_in(self, k, v)
    }
}

impl<E: Flat> Flat for Vec<E> {
    type F = E::F;
    fn flat_len(&self) -> usize {
        self[..].flat_len()
    }
    fn flat_push(&self, out: &mut Vec<E::F>) {
        self[..].flat_push(out)
    }
    fn flat_set(&mut self, k: usize, v: E::F) {
        set_in(self, k, v)
    }
}

impl<A: Flat + ?Sized> Flat for &A {
    type F = A::F;
    fn flat_len(&self) -> usize {
        (**self).flat_len()
    }
    fn flat_push(&self, out: &mut Vec<A::F>) {
        (**self).flat_push(out)
    }
    fn flat_set(&mut self, _k: usize, _v: A::F) {}
}

macro_rules! tuple {
    ($($n:tt $t:ident),+) => {
        impl<F: Real, $($t: Flat<F = F>),+> Flat for ($($t,)+) {
            type F = F;
            fn flat_len(&self) -> usize {
                0 $(+ self.$n.flat_len())+
            }
            fn flat_push(&self, out: &mut Vec<F>) {
                $(self.$n.flat_push(out);)+
            }
            fn flat_set(&mut self, mut k: usize, v: F) {
                $(
                    let n = self.$n.flat_len();
                    if k < n {
                        return self.$n.flat_set(k, v);
                    }
                    k -= n;
                )+
                let _ = k;
            }
        }
    };
}
tuple!(0 A, 1 B);
tuple!(0 A, 1 B, 2 C);
tuple!(0 A, 1 B, 2 C, 3 D);

/// Sets float number `k` through a mutable reference: what a struct's
/// `Flat` (written by its derive) asks of each field.
#[doc(hidden)]
pub trait FlatMut {
    /// The float type of the elements.
    type F;
    /// Sets float number `k` to `v`.
    fn flat_set_in(self, k: usize, v: Self::F);
}

impl<A: Flat + ?Sized> FlatMut for &mut A {
    type F = A::F;
    #[inline]
    fn flat_set_in(self, k: usize, v: A::F) {
        self.flat_set(k, v)
    }
}

/// How many floats `x` holds.
#[inline]
pub fn flat_len<X: Flat + ?Sized>(x: &X) -> usize {
    x.flat_len()
}

/// Sets float number `k` of `x` (all zeros before) to one: a basis tangent.
#[inline]
pub fn flat_unit<X: Flat + ?Sized>(x: &mut X, k: usize) {
    x.flat_set(k, <X::F as num_traits::One>::one());
}

/// A value shaped like `like` whose floats are all zero but number `k`,
/// which is one: a basis seed.
pub fn flat_basis<X: Flat + Clone>(like: &X, k: usize) -> X {
    let mut x = like.clone();
    for j in 0..x.flat_len() {
        x.flat_set(j, <X::F as num_traits::Zero>::zero());
    }
    x.flat_set(k, <X::F as num_traits::One>::one());
    x
}

/// Writes the floats of `d` into column `col` of `jac`.
pub fn flat_column<X: Flat + ?Sized>(d: &X, jac: &mut [Vec<X::F>], col: usize) {
    let mut out = Vec::with_capacity(jac.len());
    d.flat_push(&mut out);
    for (row, v) in jac.iter_mut().zip(out) {
        row[col] = v;
    }
}

/// Appends the floats of `g` to `row`.
pub fn flat_into<X: Flat + ?Sized>(g: &X, row: &mut Vec<X::F>) {
    g.flat_push(row);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_values_are_numbered_in_order() {
        let mut x = ([1.0_f64, 2.0], vec![vec![3.0], vec![4.0, 5.0]], 6.0);
        assert_eq!(flat_len(&x), 6);
        x.flat_set(4, 50.0);
        let mut out = Vec::new();
        x.flat_push(&mut out);
        assert_eq!(out, [1.0, 2.0, 3.0, 4.0, 50.0, 6.0]);
        let mut jac = vec![vec![0.0; 2]; 6];
        flat_column(&x, &mut jac, 1);
        assert_eq!(jac[4], [0.0, 50.0]);
    }
}
