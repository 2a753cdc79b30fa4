//! What a knob is, and how gradients reach a callee's slots.

/// A type that can be a knob: a tracked parameter or a `#[tracked] let`.
///
/// Its gradient has the type [`Knob::Grad`]: the knob's own type for a float
/// or an array of floats.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a knob",
    label = "a knob is `f32`, `f64`, an array, a `Vec` or a tuple of knobs, or a struct with `#[derive(mica::Knob)]`",
    note = "a struct of knobs is one with `#[derive(mica::Knob)]` on its definition; a field that is no knob is marked `#[knob(skip)]`",
    note = "`#[tracked]` marks a value whose slopes are recorded; integers, `&mut` references and other types have none"
)]
pub trait Knob {
    /// The type of this knob's gradient: the knob's own type for a float, an
    /// array, a `Vec` or a `#[derive(Knob)]` struct.
    type Grad;
    /// A gradient of the right shape, all zeros (what an unread knob answers).
    fn zeros_like(&self) -> Self::Grad;
    /// `self += factor · g`, element by element (field by field for a
    /// struct): a descent step is `model.add_scaled(&grad, -rate)`.
    ///
    /// ```
    /// use mica_runtime::Knob;
    /// let mut w = [1.0_f64, 2.0];
    /// w.add_scaled(&[0.5, -1.0], -2.0);
    /// assert_eq!(w, [0.0, 4.0]);
    /// ```
    #[inline]
    fn add_scaled(&mut self, g: &Self::Grad, factor: f64)
    where
        Self: AddScaled<Self::Grad>,
    {
        AddScaled::add_scaled_by(self, g, factor);
    }
}

/// `self += factor · g` for a knob whose gradient has the type `G`: what
/// [`Knob::add_scaled`] does. `#[derive(Knob)]` writes it for a struct.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a knob: it has no `add_scaled`",
    label = "a knob is `f32`, `f64`, an array, a `Vec` or a tuple of knobs, or a struct with `#[derive(mica::Knob)]`",
    note = "a struct of knobs is one with `#[derive(mica::Knob)]` on its definition; a field that is no knob is marked `#[knob(skip)]`"
)]
pub trait AddScaled<G: ?Sized> {
    /// `self += factor · g`, element by element.
    fn add_scaled_by(&mut self, g: &G, factor: f64);
}

impl AddScaled<f32> for f32 {
    #[inline(always)]
    fn add_scaled_by(&mut self, g: &f32, factor: f64) {
        *self += factor as f32 * *g;
    }
}

impl AddScaled<f64> for f64 {
    #[inline(always)]
    fn add_scaled_by(&mut self, g: &f64, factor: f64) {
        *self += factor * *g;
    }
}

impl<G, A: AddScaled<G>, const N: usize> AddScaled<[G; N]> for [A; N] {
    #[inline]
    fn add_scaled_by(&mut self, g: &[G; N], factor: f64) {
        for (a, b) in self.iter_mut().zip(g) {
            a.add_scaled_by(b, factor);
        }
    }
}

/// A `Vec` or a slice takes a gradient of its own length (another length
/// panics, saying so).
impl<G, A: AddScaled<G>> AddScaled<Vec<G>> for [A] {
    #[inline]
    fn add_scaled_by(&mut self, g: &Vec<G>, factor: f64) {
        assert_eq!(
            self.len(),
            g.len(),
            "add_scaled: the gradient's length is not the knob's"
        );
        for (a, b) in self.iter_mut().zip(g) {
            a.add_scaled_by(b, factor);
        }
    }
}

impl<G, A: AddScaled<G>> AddScaled<Vec<G>> for Vec<A> {
    #[inline]
    fn add_scaled_by(&mut self, g: &Vec<G>, factor: f64) {
        self.as_mut_slice().add_scaled_by(g, factor);
    }
}

impl Knob for f32 {
    type Grad = f32;
    #[inline(always)]
    fn zeros_like(&self) -> f32 {
        0.0
    }
}

impl Knob for f64 {
    type Grad = f64;
    #[inline(always)]
    fn zeros_like(&self) -> f64 {
        0.0
    }
}

impl<K: Knob, const N: usize> Knob for [K; N] {
    type Grad = [K::Grad; N];
    #[inline(always)]
    fn zeros_like(&self) -> Self::Grad {
        core::array::from_fn(|i| self[i].zeros_like())
    }
}

impl<K: Knob> Knob for [K] {
    type Grad = Vec<K::Grad>;
    fn zeros_like(&self) -> Self::Grad {
        self.iter().map(Knob::zeros_like).collect()
    }
}

impl<K: Knob> Knob for Vec<K> {
    type Grad = Vec<K::Grad>;
    fn zeros_like(&self) -> Self::Grad {
        self.as_slice().zeros_like()
    }
}

/// A tuple of knobs (a tracked parameter `p: (f64, [f64; 3])`): its
/// gradient is the tuple of its elements' gradients.
macro_rules! knob_tuple {
    ($(($($k:ident $i:tt),+))*) => {$(
        impl<$($k: Knob),+> Knob for ($($k,)+) {
            type Grad = ($($k::Grad,)+);
            #[inline]
            fn zeros_like(&self) -> Self::Grad {
                ($(self.$i.zeros_like(),)+)
            }
        }

        impl<$($k),+> AddScaled<($($k,)+)> for ($($k,)+)
        where
            $($k: AddScaled<$k>),+
        {
            #[inline]
            fn add_scaled_by(&mut self, g: &($($k,)+), factor: f64) {
                $(self.$i.add_scaled_by(&g.$i, factor);)+
            }
        }
    )*};
}

knob_tuple! {
    (A 0, B 1)
    (A 0, B 1, C 2)
    (A 0, B 1, C 2, D 3)
}

impl<K: Knob + ?Sized> Knob for &K {
    type Grad = K::Grad;
    #[inline(always)]
    fn zeros_like(&self) -> Self::Grad {
        (**self).zeros_like()
    }
}

/// A gradient that another of its shape can be added into, element by
/// element.
pub trait Accumulate {
    /// `self += other`, element by element.
    fn accumulate(&mut self, other: &Self);
}

impl Accumulate for f32 {
    #[inline(always)]
    fn accumulate(&mut self, other: &f32) {
        *self += *other;
    }
}

impl Accumulate for f64 {
    #[inline(always)]
    fn accumulate(&mut self, other: &f64) {
        *self += *other;
    }
}

impl<A: Accumulate, const N: usize> Accumulate for [A; N] {
    #[inline(always)]
    fn accumulate(&mut self, other: &Self) {
        for (a, b) in self.iter_mut().zip(other) {
            a.accumulate(b);
        }
    }
}

/// An adjoint buffer the reverse of a whole-array copy moves: a float, or
/// an array or `Vec` of them.
pub trait Clear {
    /// every element zero
    fn clear(&mut self);
    /// `into += self`, then `self` zero
    fn move_into(&mut self, into: &mut Self);
}

macro_rules! clear_float {
    ($($t:ty),*) => {$(
        impl Clear for $t {
            #[inline(always)]
            fn clear(&mut self) {
                *self = 0.0;
            }
            #[inline(always)]
            fn move_into(&mut self, into: &mut $t) {
                *into += *self;
                *self = 0.0;
            }
        }
    )*};
}

clear_float!(f32, f64);

impl<A: Clear, const N: usize> Clear for [A; N] {
    #[inline(always)]
    fn clear(&mut self) {
        clear(self);
    }
    #[inline(always)]
    fn move_into(&mut self, into: &mut Self) {
        move_adjoints(self, into);
    }
}

impl<A: Clear> Clear for Vec<A> {
    #[inline(always)]
    fn clear(&mut self) {
        clear(self);
    }
    #[inline(always)]
    fn move_into(&mut self, into: &mut Self) {
        move_adjoints(self, into);
    }
}

/// The reverse of `[x; n]` or `.fill(x)` of a constant: the elements'
/// adjoints end there.
#[inline]
pub fn clear<A: Clear>(adjoints: &mut [A]) {
    for a in adjoints {
        a.clear();
    }
}

/// The reverse of `to = from` of whole arrays: `to`'s adjoints are added
/// into `from`'s and end there. Arrays of different lengths (a `Vec`
/// assigned one of another length) meet over the shorter.
#[inline]
pub fn move_adjoints<A: Clear>(to: &mut [A], from: &mut [A]) {
    for (t, f) in to.iter_mut().zip(from) {
        t.move_into(f);
    }
}

/// Adds the slopes a callee left in `from` (a scratch slot, when one array
/// was passed to two of its tracked parameters) into the array's buffer.
#[inline(always)]
pub fn add_into<A: Accumulate>(into: &mut [A], from: &[A]) {
    for (a, b) in into.iter_mut().zip(from) {
        a.accumulate(b);
    }
}

/// An adjoint buffer as a callee's slot for its array's value now: a
/// `Vec`'s buffer, as long as the longest value the array held, cut to
/// the value's length (an array reassigned shorter, `h = layer(&h)`); an
/// array of fixed size as it is.
#[inline(always)]
pub fn fitted<'a, B: Fit + ?Sized, V: Length + ?Sized>(
    buffer: &'a mut B,
    value: &V,
) -> &'a mut B::Out {
    buffer.fit(value.length())
}

/// An adjoint buffer [`fitted`] to a value's length.
pub trait Fit {
    /// the slot a callee takes
    type Out: ?Sized;
    /// the buffer's first `len` elements (all of a fixed-size array's)
    fn fit(&mut self, len: usize) -> &mut Self::Out;
}

impl<T> Fit for Vec<T> {
    type Out = [T];
    #[inline(always)]
    fn fit(&mut self, len: usize) -> &mut [T] {
        // never longer than the buffer: a slot of another length is the
        // callee's to report
        let len = len.min(self.len());
        &mut self[..len]
    }
}

impl<T> Fit for [T] {
    type Out = [T];
    #[inline(always)]
    fn fit(&mut self, len: usize) -> &mut [T] {
        let len = len.min(self.len());
        &mut self[..len]
    }
}

impl<T, const N: usize> Fit for [T; N] {
    type Out = [T; N];
    #[inline(always)]
    fn fit(&mut self, _: usize) -> &mut [T; N] {
        self
    }
}

/// The length of an array's value, for [`fitted`].
pub trait Length {
    /// how many elements the value holds
    fn length(&self) -> usize;
}

impl<T> Length for [T] {
    #[inline(always)]
    fn length(&self) -> usize {
        self.len()
    }
}

impl<T> Length for Vec<T> {
    #[inline(always)]
    fn length(&self) -> usize {
        self.len()
    }
}

impl<T, const N: usize> Length for [T; N] {
    #[inline(always)]
    fn length(&self) -> usize {
        N
    }
}

impl<X: Length + ?Sized> Length for &X {
    #[inline(always)]
    fn length(&self) -> usize {
        (**self).length()
    }
}

impl<X: Length + ?Sized> Length for &mut X {
    #[inline(always)]
    fn length(&self) -> usize {
        (**self).length()
    }
}

/// A zero of an adjoint buffer's element type, where a fused loop starts
/// the slope it carries to the next iteration: `-0.0`, which added to any
/// value leaves it as it is (sign included), so the compiler drops the add.
#[inline(always)]
pub fn zero_element<T: num_traits::Zero + core::ops::Neg<Output = T>>(_: &[T]) -> T {
    -T::zero()
}

/// The zero gradient of a knob given by value (forward mode's zero
/// tangent of a value the reverse reads as `detach(…)`).
#[inline(always)]
pub fn zero_value<K: Knob>(k: K) -> K::Grad {
    k.zeros_like()
}

/// The zero gradient of a knob, typed after it.
#[inline(always)]
pub fn zeros_like<K: Knob + ?Sized>(k: &K) -> K::Grad {
    k.zeros_like()
}

/// How `gradient!(k)` hands out a gradient: a scalar or an array by value,
/// a `Vec` knob's gradient as a slice.
#[diagnostic::on_unimplemented(
    message = "`gradient!` of a `{Self}` knob is not known",
    label = "`gradient!` answers a float, an array or a `Vec` knob, or a struct knob declared with its type",
    note = "a struct of knobs is declared with its type written, `#[tracked] let m: {Self} = …;`, and `#[derive(mica::Knob)]` on its definition"
)]
pub trait GradientView {
    /// what `gradient!` gives
    type View<'a>
    where
        Self: 'a;
    /// the gradient, viewed
    fn view(&self) -> Self::View<'_>;
}

impl GradientView for f32 {
    type View<'a> = f32;
    #[inline(always)]
    fn view(&self) -> f32 {
        *self
    }
}

impl GradientView for f64 {
    type View<'a> = f64;
    #[inline(always)]
    fn view(&self) -> f64 {
        *self
    }
}

impl<T: Copy, const N: usize> GradientView for [T; N] {
    type View<'a>
        = [T; N]
    where
        T: 'a;
    #[inline(always)]
    fn view(&self) -> [T; N] {
        *self
    }
}

impl<T> GradientView for Vec<T> {
    type View<'a>
        = &'a [T]
    where
        T: 'a;
    #[inline(always)]
    fn view(&self) -> &[T] {
        self
    }
}

/// A constant operand of a derivative rule, as the rule's type `T`: `T`
/// itself or `&T` (an element from `.iter()`). Generic in `T`, so an
/// unsuffixed literal takes the rule's type.
pub trait AsValue<T> {
    /// the value
    fn into_value(self) -> T;
}

macro_rules! as_value {
    ($($t:ty),*) => {$(
        impl AsValue<$t> for $t {
            #[inline(always)]
            fn into_value(self) -> $t {
                self
            }
        }
    )*};
}

as_value!(f32, f64, i32);

impl AsValue<i32> for &i32 {
    #[inline(always)]
    fn into_value(self) -> i32 {
        *self
    }
}

impl<T: crate::Real> AsValue<T> for &T {
    #[inline(always)]
    fn into_value(self) -> T {
        *self
    }
}

/// A constant operand of a derivative rule, as the rule's type.
#[inline(always)]
pub fn val<T, V: AsValue<T>>(v: V) -> T {
    v.into_value()
}

/// Checks at compile time that a `#[tracked] let` holds a knob.
#[inline(always)]
pub fn assert_knob<K: Knob + ?Sized>(_: &K) {}

/// A knob field's zero gradient, for `#[derive(Knob)]`.
#[inline(always)]
pub fn zeros_field<K: Knob<Grad = K>>(k: &K) -> K {
    k.zeros_like()
}

/// A knob field's step, for `#[derive(Knob)]`.
#[inline(always)]
pub fn step_field<K: AddScaled<K>>(k: &mut K, g: &K, factor: f64) {
    k.add_scaled_by(g, factor);
}

/// Compiles only where `K` is a knob: Mica's words for a tracked struct
/// without `#[derive(mica::Knob)]`.
#[inline(always)]
pub fn assert_knob_type<K: Knob + ?Sized>() {}

/// The scalar `1` of a recorded value's type: the seed of a window's walk.
#[inline(always)]
pub fn one_like<T: num_traits::Float>(_: &T) -> T {
    T::one()
}

/// Stands for "no slot" where a constant is passed to a tracked parameter of a
/// callee: the callee's slope for it is dropped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoSlot;

/// Where a callee's adjoint adds one tracked parameter's slope: either a
/// caller's `&mut` adjoint or [`NoSlot`].
pub trait IntoSlot<'a, G: ?Sized> {
    /// The caller's slot, if it has one.
    fn into_slot(self) -> Option<&'a mut G>;
}

impl<'a, G: ?Sized> IntoSlot<'a, G> for &'a mut G {
    #[inline(always)]
    fn into_slot(self) -> Option<&'a mut G> {
        Some(self)
    }
}

/// An array's adjoint buffer, where the callee takes a slice.
impl<'a, T, const N: usize> IntoSlot<'a, [T]> for &'a mut [T; N] {
    #[inline(always)]
    fn into_slot(self) -> Option<&'a mut [T]> {
        Some(self)
    }
}

/// A `Vec`'s adjoint buffer, where the callee takes a slice.
impl<'a, T> IntoSlot<'a, [T]> for &'a mut Vec<T> {
    #[inline(always)]
    fn into_slot(self) -> Option<&'a mut [T]> {
        Some(self.as_mut_slice())
    }
}

impl<'a, G: ?Sized> IntoSlot<'a, G> for NoSlot {
    #[inline(always)]
    fn into_slot(self) -> Option<&'a mut G> {
        None
    }
}

/// Accepted by a callee's parameter that is not tracked: only a constant may
/// be passed there.
#[diagnostic::on_unimplemented(
    message = "a recorded value is passed to a parameter that is not `#[tracked]`",
    label = "its slope would be lost here",
    note = "mark the callee's parameter `#[tracked]`; `mica::detach(…)` would pass a constant, and the slope would stop there"
)]
pub trait Untracked {}

impl Untracked for NoSlot {}

/// The shape of an array made inside a window, captured where it is made,
/// so its adjoint buffer can be made later, wherever the walk reaches it.
pub trait Shaped {
    /// what is kept: nothing for a fixed-size array of floats, the length
    /// of a `Vec`
    type Shape: Copy + Default + Grow;
    /// the adjoint buffer's type
    type Grad;
    /// the value without its borrows (`[f64; 3]` for `&[f64; 3]`): a
    /// captured shape is typed after it, so it outlives a borrow of a
    /// local array
    type Owned: Shaped<Shape = Self::Shape, Grad = Self::Grad>;
    /// this value's shape
    fn shape(&self) -> Self::Shape;
    /// an all-zero buffer of that shape
    fn zeros(shape: Self::Shape) -> Self::Grad;
    /// what a loop's reverse keeps between iterations so as not to
    /// allocate a buffer in each: a `Vec`'s memory, nothing for a buffer
    /// on the stack
    type Pool: Default;
    /// an all-zero buffer of that shape, in the pool's memory if it holds
    /// some
    fn zeros_pooled(shape: Self::Shape, pool: &mut Self::Pool) -> Self::Grad;
    /// a buffer done with, its memory into the pool
    fn give_back(pool: &mut Self::Pool, grad: Self::Grad);
}

/// For the buffers on the stack: nothing is kept.
macro_rules! nothing_pooled {
    () => {
        type Pool = ();
        #[inline(always)]
        fn zeros_pooled(shape: Self::Shape, (): &mut ()) -> Self::Grad {
            Self::zeros(shape)
        }
        #[inline(always)]
        fn give_back((): &mut (), _: Self::Grad) {}
    };
}

macro_rules! shaped_float {
    ($($t:ty),*) => {$(
        impl Shaped for $t {
            type Shape = ();
            type Grad = $t;
            type Owned = $t;
            #[inline(always)]
            fn shape(&self) {}
            #[inline(always)]
            fn zeros((): ()) -> $t {
                0.0
            }
            nothing_pooled!();
        }
    )*};
}

shaped_float!(f32, f64);

impl<K: Shaped, const N: usize> Shaped for [K; N] {
    type Shape = K::Shape;
    type Grad = [K::Grad; N];
    type Owned = [K::Owned; N];
    #[inline(always)]
    fn shape(&self) -> K::Shape {
        self.first().map(K::shape).unwrap_or_default()
    }
    #[inline(always)]
    fn zeros(shape: K::Shape) -> Self::Grad {
        core::array::from_fn(|_| K::zeros(shape))
    }
    nothing_pooled!();
}

/// A borrowed array (`let r = &h;`, a slice `let mut r: &[f64] = x;`):
/// the array's shape and buffer.
impl<A: Shaped + ?Sized> Shaped for &A {
    type Shape = A::Shape;
    type Grad = A::Grad;
    type Owned = A::Owned;
    #[inline(always)]
    fn shape(&self) -> A::Shape {
        (**self).shape()
    }
    #[inline(always)]
    fn zeros(shape: A::Shape) -> A::Grad {
        A::zeros(shape)
    }
    type Pool = A::Pool;
    #[inline(always)]
    fn zeros_pooled(shape: A::Shape, pool: &mut A::Pool) -> A::Grad {
        A::zeros_pooled(shape, pool)
    }
    #[inline(always)]
    fn give_back(pool: &mut A::Pool, grad: A::Grad) {
        A::give_back(pool, grad)
    }
}

/// A slice, behind the reference that holds it (`let mut r: &[f64] =
/// x;`), and the elements of a `Vec`.
impl<K: Shaped> Shaped for [K]
where
    K::Grad: Clone,
{
    type Shape = (usize, K::Shape);
    type Grad = Vec<K::Grad>;
    type Owned = Vec<K::Owned>;
    #[inline]
    fn shape(&self) -> Self::Shape {
        (self.len(), self.first().map(K::shape).unwrap_or_default())
    }
    /// `vec![zero; len]`: zeroed memory from the allocator for floats, and
    /// a length the optimiser sees (so indices below it need no checks)
    #[inline]
    fn zeros((len, shape): Self::Shape) -> Self::Grad {
        vec![K::zeros(shape); len]
    }
    type Pool = Option<Vec<K::Grad>>;
    /// the pool's `Vec` emptied and filled with zeros again: no allocation
    /// once it holds as many
    #[inline]
    fn zeros_pooled((len, shape): Self::Shape, pool: &mut Self::Pool) -> Self::Grad {
        match pool.take() {
            Some(mut v) => {
                v.clear();
                v.resize(len, K::zeros(shape));
                v
            }
            None => Self::zeros((len, shape)),
        }
    }
    #[inline(always)]
    fn give_back(pool: &mut Self::Pool, grad: Self::Grad) {
        *pool = Some(grad);
    }
}

/// A `Vec`: shaped as its elements' slice.
impl<K: Shaped> Shaped for Vec<K>
where
    K::Grad: Clone,
{
    type Shape = (usize, K::Shape);
    type Grad = Vec<K::Grad>;
    type Owned = Vec<K::Owned>;
    #[inline]
    fn shape(&self) -> Self::Shape {
        self.as_slice().shape()
    }
    #[inline]
    fn zeros(shape: Self::Shape) -> Self::Grad {
        <[K]>::zeros(shape)
    }
    type Pool = Option<Vec<K::Grad>>;
    #[inline(always)]
    fn zeros_pooled(shape: Self::Shape, pool: &mut Self::Pool) -> Self::Grad {
        <[K]>::zeros_pooled(shape, pool)
    }
    #[inline(always)]
    fn give_back(pool: &mut Self::Pool, grad: Self::Grad) {
        <[K]>::give_back(pool, grad)
    }
}

/// A shape that takes in another: the larger length at each level, so a
/// buffer of it holds either.
#[doc(hidden)]
pub trait Grow {
    fn grow(&mut self, other: Self);
}

impl Grow for () {
    #[inline(always)]
    fn grow(&mut self, (): ()) {}
}

impl<S: Grow> Grow for (usize, S) {
    #[inline(always)]
    fn grow(&mut self, (len, inner): (usize, S)) {
        self.0 = self.0.max(len);
        self.1.grow(inner);
    }
}

/// A local array given a whole new value (`h = next;`, a `Vec` of another
/// length maybe): its captured shape grows to hold the new one too, so the
/// adjoint buffer the reverse makes from it has room for every length the
/// array had.
#[doc(hidden)]
#[inline(always)]
pub fn grow_shape<A: Shaped>(shape: &mut ShapeOf<A>, new: ShapeOf<A>) {
    shape.1.grow(new.1);
}

/// A captured shape, typed after its array.
pub struct ShapeOf<A: Shaped>(core::marker::PhantomData<fn() -> A>, A::Shape);

impl<A: Shaped> Clone for ShapeOf<A> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<A: Shaped> Copy for ShapeOf<A> {}

/// The shape of an array made inside a window.
#[inline(always)]
pub fn shape_of<A: Shaped>(array: &A) -> ShapeOf<A::Owned> {
    ShapeOf(core::marker::PhantomData, array.shape())
}

/// A zero adjoint buffer for an array of the shape `shape_of` captured.
#[inline(always)]
pub fn zeros_of<A: Shaped>(shape: ShapeOf<A>) -> A::Grad {
    A::zeros(shape.1)
}

/// A zero adjoint buffer for an array of the shape `shape_of` captured,
/// made in the memory `pool` holds (taken from it), if any: the buffer of
/// an array made in a loop's body, given back to `pool` at the end of each
/// iteration of the loop's reverse ([`give_back`]).
#[inline(always)]
pub fn zeros_from<A: Shaped>(shape: ShapeOf<A>, pool: &mut A::Pool) -> A::Grad {
    A::zeros_pooled(shape.1, pool)
}

/// The buffer `grad` of an array of the shape `shape` captured, done with:
/// its memory into `pool` (a `Vec`'s; a buffer on the stack keeps nothing).
#[inline(always)]
pub fn give_back<A: Shaped>(shape: &ShapeOf<A>, pool: &mut A::Pool, grad: A::Grad) {
    let _ = shape;
    A::give_back(pool, grad)
}

/// A zero adjoint buffer for a `Vec` of the shape `shape_of` captured, kept
/// on the stack up to `CAP` elements (past that, on the heap): for a
/// `vec![x; N]` whose `N` is a constant. The reverse sweep indexes the plain
/// slice [`InlineZeros::slice`] gives, and its loops over that slice and the
/// slots stay vectorised (over a `SmallVec` they did not).
#[doc(hidden)]
pub struct InlineZeros<T, const CAP: usize> {
    stack: [T; CAP],
    heap: Vec<T>,
    len: usize,
}

impl<T: Copy, const CAP: usize> InlineZeros<T, CAP> {
    /// All zeros, `shape`'s length of them.
    #[inline(always)]
    pub fn new<K: Shaped<Grad = T>>(shape: ShapeOf<Vec<K>>) -> Self {
        let (len, inner) = shape.1;
        let zero = K::zeros(inner);
        let heap = if len > CAP {
            vec![zero; len]
        } else {
            Vec::new()
        };
        InlineZeros {
            stack: [zero; CAP],
            heap,
            len,
        }
    }

    /// The buffer, as long as its array.
    #[inline(always)]
    pub fn slice(&mut self) -> &mut [T] {
        if self.len > CAP {
            &mut self.heap
        } else {
            &mut self.stack[..self.len]
        }
    }
}

/// The adjoint of `[x; n]`'s `x`: the sum of the elements' adjoints, which
/// are cleared (the literal is where they end).
#[inline]
pub fn take_sum<T: num_traits::Float>(adjoints: &mut [T]) -> T {
    let mut total = T::zero();
    for a in adjoints.iter_mut() {
        total = total + *a;
        *a = T::zero();
    }
    total
}

/// A value to start a temporary from, before the branch arm that computes
/// it runs (the reverse reads it only if that arm ran).
pub trait Placeholder {
    /// any value of the type
    fn placeholder() -> Self;
}

macro_rules! placeholder {
    ($($t:ty => $v:expr),* $(,)?) => {$(
        impl Placeholder for $t {
            #[inline(always)]
            fn placeholder() -> Self {
                $v
            }
        }
        impl<'a> Placeholder for &'a $t {
            #[inline(always)]
            fn placeholder() -> Self {
                const VALUE: $t = $v;
                &VALUE
            }
        }
    )*};
}

placeholder!(
    f32 => 0.0, f64 => 0.0, usize => 0, isize => 0, i32 => 0, i64 => 0, u32 => 0, u64 => 0, bool => false,
);

impl<T: Placeholder, const N: usize> Placeholder for [T; N] {
    #[inline(always)]
    fn placeholder() -> Self {
        core::array::from_fn(|_| T::placeholder())
    }
}

macro_rules! placeholder_tuple {
    ($($t:ident),+) => {
        impl<$($t: Placeholder),+> Placeholder for ($($t,)+) {
            #[inline(always)]
            fn placeholder() -> Self {
                ($($t::placeholder(),)+)
            }
        }
    };
}

placeholder_tuple!(A, B);
placeholder_tuple!(A, B, C);
placeholder_tuple!(A, B, C, D);

/// A loop's range kept for its reverse (`0..h.len()` inside a branch arm).
impl<T: Placeholder> Placeholder for core::ops::Range<T> {
    #[inline(always)]
    fn placeholder() -> Self {
        T::placeholder()..T::placeholder()
    }
}

impl<T: Placeholder> Placeholder for core::ops::RangeInclusive<T> {
    #[inline(always)]
    fn placeholder() -> Self {
        T::placeholder()..=T::placeholder()
    }
}

impl<A: Shaped> Placeholder for ShapeOf<A> {
    #[inline(always)]
    fn placeholder() -> Self {
        ShapeOf(core::marker::PhantomData, A::Shape::default())
    }
}

/// A reference a call in a branch arm kept (`Some` where the call ran): the
/// call's reverse runs only where the call ran, so it is there.
#[doc(hidden)]
#[inline(always)]
pub fn ran<T>(kept: Option<T>) -> T {
    match kept {
        Some(value) => value,
        None => unreachable!("the reverse of a call runs only where the call ran"),
    }
}

/// The starting value of a temporary computed in a branch arm.
#[inline(always)]
pub fn placeholder<T: Placeholder>() -> T {
    T::placeholder()
}

/// A loop element as a scalar value: `x` or `*x`.
pub trait Element {
    /// the scalar
    type Out;
    /// the scalar, by value
    fn element(self) -> Self::Out;
}

macro_rules! element {
    ($($t:ty),*) => {$(
        impl Element for $t {
            type Out = $t;
            #[inline(always)]
            fn element(self) -> $t {
                self
            }
        }
        impl Element for &&$t {
            type Out = $t;
            #[inline(always)]
            fn element(self) -> $t {
                **self
            }
        }
    )*};
}

element!(f32, f64, i32);

impl Element for &i32 {
    type Out = i32;
    #[inline(always)]
    fn element(self) -> i32 {
        *self
    }
}

impl<T: crate::Real> Element for &T {
    type Out = T;
    #[inline(always)]
    fn element(self) -> T {
        *self
    }
}

/// A loop element, as the scalar the reverse sweep keeps.
#[inline(always)]
pub fn element<E: Element>(e: E) -> E::Out {
    e.element()
}

/// A term of a run's start (see [`run`]), from a `usize` or a `&usize`.
#[doc(hidden)]
#[inline(always)]
pub fn index<B: core::borrow::Borrow<usize>>(b: B) -> Option<usize> {
    Some(*b.borrow())
}

/// `a + b` of two terms of a run's start, `None` where it overflows.
#[doc(hidden)]
#[inline(always)]
pub fn index_add(a: Option<usize>, b: Option<usize>) -> Option<usize> {
    a?.checked_add(b?)
}

/// `a - b` of two terms of a run's start, `None` below zero.
#[doc(hidden)]
#[inline(always)]
pub fn index_sub(a: Option<usize>, b: Option<usize>) -> Option<usize> {
    a?.checked_sub(b?)
}

/// `a * b` of two terms of a run's start, `None` where it overflows.
#[doc(hidden)]
#[inline(always)]
pub fn index_mul(a: Option<usize>, b: Option<usize>) -> Option<usize> {
    a?.checked_mul(b?)
}

/// Panics unless the slot of the array knob `name` has one slope per
/// element: `slot` slopes for `len` elements. `_backward` checks its slots
/// with it before it writes to them.
#[doc(hidden)]
#[inline]
#[track_caller]
pub fn slot_len(slot: usize, len: usize, name: &str) {
    if slot != len {
        slot_len_failed(slot, len, name)
    }
}

#[cold]
#[inline(never)]
#[track_caller]
fn slot_len_failed(slot: usize, len: usize, name: &str) -> ! {
    panic!("the slot of `{name}` has {slot} slopes for its {len} elements")
}

/// The fewest elements for which a loop nested in another, that only reads,
/// takes its runs (see [`long_run`]).
#[doc(hidden)]
pub const LONG_RUN: usize = 4;

/// Whether the range `lo..hi` has at least [`LONG_RUN`] elements: a loop
/// nested in another that only reads, over a range not constant, takes its
/// runs ([`run`]) only then, since below that the runs, taken each time
/// the loop starts, cost more than the bounds checks they spare.
#[doc(hidden)]
#[inline(always)]
pub fn long_run(lo: usize, hi: usize) -> bool {
    hi.saturating_sub(lo) >= LONG_RUN
}

/// No run of `x`: a loop too short for runs reads every element as written
/// (the `None` of [`run`], typed by the array).
#[doc(hidden)]
#[inline(always)]
pub fn no_run<T>(_: &[T]) -> Option<&[T]> {
    None
}

/// `x[start..][..hi - lo]`, if `lo <= hi` and every element of it is there:
/// the run a forward loop `for j in lo..hi` reads, taken without panicking.
#[doc(hidden)]
#[inline(always)]
pub fn run<T>(x: &[T], start: Option<usize>, lo: usize, hi: usize) -> Option<&[T]> {
    let len = hi.checked_sub(lo)?;
    x.get(start?..)?.get(..len)
}

/// `x[..len]`, if `len` could be worked out and every element of it is
/// there: the run a nest of loops reads (its length `None` where working it
/// out overflowed), taken without panicking.
#[doc(hidden)]
#[inline(always)]
pub fn run_span<T>(x: &[T], len: Option<usize>) -> Option<&[T]> {
    x.get(..len?)
}

#[cfg(test)]
mod tests {
    use super::{run, run_span};

    #[test]
    fn inline_zeros_is_as_long_as_its_array_on_the_stack_or_the_heap() {
        use super::{shape_of, InlineZeros};
        for len in [0, 1, 3, 4, 5, 9] {
            let array = vec![1.5_f64; len];
            let mut buffer = InlineZeros::<f64, 4>::new(shape_of(&array));
            let slice = buffer.slice();
            assert_eq!(slice.len(), len);
            assert!(slice.iter().all(|&a| a == 0.0));
            // past the capacity the slice is the heap's
            let on_stack = slice.as_ptr() == buffer.stack.as_ptr();
            assert_eq!(on_stack, len <= 4, "{len}");
            buffer.slice().iter_mut().for_each(|a| *a += 2.0);
            assert!(buffer.slice().iter().all(|&a| a == 2.0));
        }
    }

    #[test]
    fn run_is_the_whole_range_or_nothing() {
        let x = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(run(&x, Some(1), 0, 3), Some(&x[1..4]));
        assert_eq!(run(&x, Some(0), 2, 2), Some(&x[0..0]));
        assert_eq!(run(&x, Some(4), 5, 5), Some(&x[4..4]));
        // past the end, a start that overflowed, a reversed range
        assert_eq!(run(&x, Some(2), 0, 3), None);
        assert_eq!(run(&x, Some(5), 0, 0), None);
        assert_eq!(run(&x, None, 0, 1), None);
        assert_eq!(run(&x, Some(0), 3, 1), None);
        assert_eq!(run(&x, Some(usize::MAX), 0, 2), None);
        // a nest's run: from the start, if its length is known and there
        assert_eq!(run_span(&x, Some(3)), Some(&x[..3]));
        assert_eq!(run_span(&x, Some(4)), Some(&x[..]));
        assert_eq!(run_span(&x, Some(0)), Some(&x[..0]));
        assert_eq!(run_span(&x, Some(5)), None);
        assert_eq!(run_span(&x, None), None);
    }

    #[test]
    fn index_terms_are_checked() {
        use super::{index, index_add, index_mul, index_sub};
        let n = 7usize;
        let by_ref: &usize = &n;
        assert_eq!(index(by_ref), Some(7));
        assert_eq!(index_add(index(n), index(3)), Some(10));
        assert_eq!(index_sub(index(n), index(8)), None);
        assert_eq!(index_mul(index(usize::MAX), index(2)), None);
        assert_eq!(index_add(None, index(1)), None);
        assert_eq!(index_mul(index(n), index_sub(index(n), index(1))), Some(42));
    }

    #[test]
    fn zeros_from_reuses_a_vec_given_back_and_zeroes_it() {
        use super::{give_back, shape_of, zeros_from};
        let mut pool: Option<Vec<f64>> = None;
        // the first has nothing to reuse
        let shape = shape_of(&vec![1.0_f64; 6]);
        let mut a = zeros_from(shape, &mut pool);
        assert_eq!(a, vec![0.0; 6]);
        a.iter_mut().for_each(|x| *x = 3.0);
        let memory = a.as_ptr();
        give_back(&shape, &mut pool, a);
        // shorter, then as long again: the same memory, zeroed
        for len in [4, 6, 0, 5] {
            let shape = shape_of(&vec![1.0_f64; len]);
            let mut b = zeros_from(shape, &mut pool);
            assert!(pool.is_none());
            assert_eq!(b, vec![0.0; len], "{len}");
            if len > 0 {
                assert_eq!(b.as_ptr(), memory, "{len}");
            }
            b.iter_mut().for_each(|x| *x = -1.0);
            give_back(&shape, &mut pool, b);
        }
        // rows of a `Vec` of `Vec`s
        let mut rows: Option<Vec<Vec<f32>>> = Some(vec![vec![2.0; 3]; 2]);
        let m = zeros_from(shape_of(&vec![vec![1.0_f32; 2]; 3]), &mut rows);
        assert_eq!(m, vec![vec![0.0; 2]; 3]);
        // a fixed-size array keeps nothing in its pool
        let fixed = shape_of(&[1.0_f64; 3]);
        let mut none = ();
        let mut z = zeros_from(fixed, &mut none);
        assert_eq!(z, [0.0; 3]);
        z[1] = 4.0;
        give_back(&fixed, &mut none, z);
        assert_eq!(zeros_from(fixed, &mut none), [0.0; 3]);
    }
}
