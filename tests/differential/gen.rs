//! Random `#[tape]` programs: a tiny syntax tree, a generator deterministic
//! from a seed, a renderer into two dialects (Mica's `f64` and the test's
//! `Dual`), and a statement-deletion shrinker. Some programs have block
//! helpers (`UHelper`, called by `E::CallU` and `S::Call`): the function is
//! then rendered inside a `#[tape] mod` with them.

use std::collections::BTreeSet;
use std::fmt::Write as _;

/// SplitMix64: tiny, good enough, deterministic.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    /// A short literal in `[lo, hi)`, two decimals.
    pub fn lit(&mut self, lo: f64, hi: f64) -> f64 {
        (self.uniform(lo, hi) * 100.0).round() / 100.0
    }
}

/// An index into an array.
#[derive(Clone, Debug)]
pub enum Ix {
    Const(usize),
    /// a loop index (`usize`), reduced modulo the length when it may exceed it
    Var(String, bool),
    /// a loop index plus a constant, in bounds by the loop's range
    Off(String, i64),
    /// twice a loop index, in bounds by the loop's range
    Twice(String),
    /// `(j as i64 + k) as usize`: a loop's index shifted by a signed
    /// offset, a loop's counter over a range of signed literals
    Signed(String, String),
    /// a named index plus (with the flag) or minus a row's stride written
    /// as a literal or a named constant: `u[p + K4]`; or a column's index
    /// plus a row's start, `g[j + i * K3]`
    Stride(String, bool, String),
    /// a constant index read through a borrow of the array, `{ let r =
    /// &h; r[k] }`
    Borrowed(usize),
    /// the first element (`*h.first().unwrap()`), or the last (with the
    /// flag, `*h.last().unwrap()`); as a method's receiver without the `*`
    End(bool),
    /// the same through an iterator: `*h.iter().next().unwrap()`, or
    /// `*h.iter().last().unwrap()` (with the flag)
    IterEnd(bool),
}

#[derive(Clone, Debug)]
pub enum E {
    Var(String),
    /// `*a`, an element reached through `.iter()`; as a method's receiver,
    /// `a` (auto-deref) when the flag is set, `(*a)` otherwise
    Deref(String, bool),
    Lit(f64),
    /// the untracked `f64` parameter
    Param,
    /// a loop index as `f64`
    IdxF(String),
    Index(String, Ix),
    /// `m[i][j]` on a matrix knob of `R` rows and `C` columns
    Index2(String, Ix, usize, Ix, usize),
    Bin(char, Box<E>, Box<E>),
    Neg(Box<E>),
    M1(&'static str, Box<E>),
    M2(&'static str, Box<E>, Box<E>),
    Powi(Box<E>, i32),
    MulAdd(Box<E>, Box<E>, Box<E>),
    /// `mica::sigmoid`, `relu`, `softplus`, `detach`
    Fun(&'static str, Box<E>),
    /// the crate's custom rule
    Custom(Box<E>),
    /// the program's scalar helper `h(a, b)`
    CallH(Box<E>, Box<E>),
    /// the program's array helper `g(arr)` on a local `[f64; 3]`
    CallG(String),
    /// `p{id}_r(v)`: the program's `#[tape]` function of a row
    /// (`#[tracked] r: &[f64]`), given the row `v` of a matrix knob that a
    /// chain's closure borrows (`m.iter().map(|v| … p_r(v) …)`)
    CallR(String),
    /// `p{id}_v(a)[k]` (k < 3): an element of what a `#[tape]` function
    /// returning an array gives; k ≥ 3, a block reading what one returning
    /// a tuple gives (`{ let (q0, _, q2) = p{id}_t(a); … }`)
    CallV(String, usize),
    /// the program's `#[tape]` method `o.m(a, b)`, `o` an untracked parameter
    CallM(Box<E>, Box<E>),
    /// `self.s`, the receiver's (untracked) field, inside the method
    SelfS,
    If(Box<Cond>, Box<E>, Box<E>),
    /// `match x { g if g > c => a, g => b }` (`_ =>` where `b` does not
    /// read `g`): a `match` on a value by a guard, `a` and `b` read `g`
    Guard(String, Box<E>, f64, Box<E>, Box<E>),
    /// `match { let g_o = x; if g_o > c { Some(g_o) } else { None } } {
    /// Some(g) => a, None => b }`, or with the flag `if let Some(g) = … { a
    /// } else { b }`: an `Option` made and tested in place, `a` reading `g`
    Opt(String, Box<E>, f64, Box<E>, Box<E>, bool),
    Match(Vec<E>),
    /// `{ let u = a; let u = u.sin() * 0.5 + b; u }`
    Shadow(String, Box<E>, Box<E>),
    /// a call to the program's block helper `u{k}` (returning a scalar,
    /// with no out-parameter)
    CallU(usize, Vec<Arg>),
    /// a call to block helper `u{k}` returning an array, summed where it
    /// stands: `p_u0(..).iter().sum::<f64>()` (the dual numbers add the
    /// three elements of the call's value)
    SumU(usize, Vec<Arg>),
    /// an array (with the flag) or a tuple of values: the value of a block
    /// helper's early `return` (`()` when empty: `return;`)
    Pack(bool, Vec<E>),
    /// an iterator chain over an array, consumed into a scalar
    Chain(Box<Chain>),
    /// a call of a closure bound by `let` (`S::LetClosure`)
    CallC(String, Box<E>),
    /// the program's block helper generic over a length, `p{id}_n(&a, w)`
    /// (`fn p{id}_n<const N: usize>(a: &[f64; N], w: f64) -> f64`), given a
    /// local array `a` or (without a name) an array literal of these three
    CallN(Option<String>, Vec<E>, Box<E>),
}

/// How an iterator chain ends.
#[derive(Clone, Debug)]
pub enum Consume {
    Sum,
    Product,
    /// `.fold(init, |acc, x| acc * 0.5 + x)`
    Fold(Box<E>),
    /// `.fold(f64::NEG_INFINITY, f64::max)`
    Max,
    /// `.min_by(|a, b| a.total_cmp(b)).unwrap()`
    Min,
    /// `.reduce(|a, b| a * 0.5 + b).unwrap()` (0), `.reduce(f64::max)
    /// .unwrap()` (1), `.fold(0.0, f64::max)` from an untyped zero (2)
    Reduce(u8),
    /// `{ let c: Vec<f64> = ….collect(); c[c.len() - 1] * 0.5 + c[0] }`
    Collect,
}

/// `src.iter()[.zip(z.iter())][.rev()][.skip(n)][.take(n)][.step_by(k)]
/// [.enumerate()[.rev()]][.filter(|x| **x > c)].map(|…| map).consume`, written as the loop it is
/// for the dual numbers.
#[derive(Clone, Debug)]
pub struct Chain {
    pub src: String,
    /// the source is an array literal of these, written where the chain
    /// starts (`[e1, e2].iter()`), not the array `src`
    pub lit: Option<Vec<E>>,
    pub zip: Option<String>,
    pub rev: bool,
    pub skip: usize,
    pub take: Option<usize>,
    pub enumerate: bool,
    pub filter: Option<f64>,
    /// `.map(…).filter(|m| *m > c)` (true) or `.filter(|&m| m > c)`
    /// (false): the mapped values above `c` kept, the filter's closure
    /// handed a reference to each
    pub kept: Option<(f64, bool)>,
    /// a `fold` (`Consume::Fold`) into a pair, the second value the sum of
    /// squares: `{ let (pa, pb) = ….fold((init, 0.0), |(acc, acc2), x|
    /// (acc * 0.5 + x, acc2 + x * x)); pa + pb * 0.25 }`
    pub pair: bool,
    /// instead of its `sum`, the place of the first mapped value above
    /// this constant, a number without a slope: `….position(|m| m > c)
    /// .unwrap_or(7) as f64 * 0.25`
    pub position: Option<f64>,
    /// the closure's names: the element, the zipped element, the position
    pub v: String,
    pub w: String,
    pub k: String,
    pub map: Box<E>,
    pub consume: Consume,
    /// over `src.chunks_exact(k)` (form 0), `src.windows(k)` (1) or
    /// `src.chunks(k)` (2): the element `v` a chunk, not a number
    pub chunks: Option<(u8, usize)>,
    /// `.copied().map(f)`, `f` a closure bound by `let` (`map` is `f(v)`)
    pub pass: Option<String>,
    /// the source is a literal of pairs of constants (`[(a, b), …].iter()`),
    /// its closure's pattern `&(v, w)`, or `(v, w)` (true: `v` and `w`
    /// references, read as `*v`)
    pub pairs: Option<(Vec<(f64, f64)>, bool)>,
    /// over a zip, the pair named whole (`|p| (*p.0) * (*p.1) + e`): `map`
    /// is then `v * w + e`, as the dual numbers' loop reads it
    pub whole: Option<String>,
    /// the zipped array's iterator skips its first element
    /// (`.zip(z.iter().skip(1))`, neighbours)
    pub zip_skip: bool,
    /// the zipped array's iterator zipped again with the array itself
    /// (`.zip(z.iter().zip(z.iter()))`, the pattern `(…, (&w, _))`): a
    /// chain zipped with a chain
    pub zip_nested: bool,
    /// another array chained after the source (`src.iter().chain(j.iter())`)
    pub join: Option<String>,
    /// `.enumerate().rev()`: the positions counted from the front, the
    /// elements taken last first
    pub rev_after: bool,
    /// the `.rev()` of `rev` or `rev_after` written after the `map`
    /// instead (`.map(f).rev()`: the same elements, `f` giving each the
    /// same in either order); `rev` only with no `skip`, `take`,
    /// `step_by` or `enumerate` after it
    pub late_rev: bool,
    /// `.step_by(k)` after `skip` and `take` (not after `rev`, which Mica
    /// refuses)
    pub step: Option<usize>,
    /// over the rows of the matrix knob `src`: the closure's element `v`
    /// a row it borrows (`|v|`), passed on to a function (`E::CallR`)
    pub rows: bool,
    /// a `reduce` or `min_by` ended by `.unwrap_or(d)` (`.unwrap_or_default()`
    /// where `d` is zero), not `.unwrap()`: the chain may then be empty (all
    /// filtered out, or skipped)
    pub or: Option<f64>,
    /// a `reduce` or `min_by` of a chain that is never empty ended by
    /// `.expect(…)`, not `.unwrap()`
    pub expect: bool,
    /// the `filter` written `take_while`: the walk ends at the first
    /// element it refuses
    pub cut: bool,
}

/// How a block helper takes one parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PKind {
    /// `x: f64`, sometimes `mut` and changed in the body
    Scalar,
    /// `v: [f64; 3]`, by value, sometimes `mut` and changed in the body
    Arr,
    /// `a: &[f64; 3]`
    Ref,
    /// `s: &[f64]`, of at least this length
    Slice(usize),
    /// `y: &mut [f64; 3]`, an out-parameter the helper writes
    Out,
    /// `z: &mut [f64]`, of at least this length, an out-parameter
    OutSlice(usize),
}

/// What a block helper returns.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ret {
    Scalar,
    Arr,
    Tuple,
    /// nothing (the helper has an out-parameter)
    Unit,
}

/// The type of an array in one dialect, for passing it to a helper.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Src {
    /// `&[f64; N]`, a reference held (a knob of the function form)
    Ref,
    /// `&[f64]`, a reference held
    SliceRef,
    /// `[f64; N]`, a value (a local array, a helper's result)
    Own,
    /// `Vec<f64>`
    Vec,
}

/// An argument of a call to a block helper.
#[derive(Clone, Debug)]
pub enum Arg {
    /// a scalar
    S(E),
    /// an array literal `[a, b, c]` (borrowed where the parameter borrows)
    L(PKind, Vec<E>),
    /// an array place: its name, its type in Mica's dialect and in the dual
    /// numbers', the parameter it is passed to, whether a reference held is
    /// borrowed again (`&w`), and a sub-range (`&w[1..3]`)
    A {
        name: String,
        src: (Src, Src),
        to: PKind,
        amp: bool,
        range: Option<(usize, usize)>,
    },
}

/// A block helper `u{k}` of a `#[tape] mod`: no marks, any entry point may
/// call it with recorded arguments.
#[derive(Clone, Debug)]
pub struct UHelper {
    pub params: Vec<(String, PKind)>,
    pub ret: Ret,
    pub body: Vec<S>,
    /// an array's other two elements, a tuple's second one (the first
    /// sums the body's top-level values, as the program's value does)
    pub extra: Vec<E>,
    /// an array returned as this by-value parameter, `v[1] += sum; v`
    pub tail_var: Option<String>,
    /// the sum squashed by `tanh` (where an array or tuple holds it)
    pub squash: bool,
    /// a scalar returned as `[sum].iter().sum()`: a consumer with no type
    /// written, its type the helper's return type (Mica's dialect only)
    pub summed: bool,
}

#[derive(Clone, Debug)]
pub struct Cond {
    pub a: E,
    pub gt: bool,
    pub b: E,
    /// or another test (`a > b` unread, or `b` unread)
    pub test: Option<Test>,
}

/// A branch's test other than a comparison.
#[derive(Clone, Debug)]
pub enum Test {
    /// `w.iter().any(|&val| val > c)` (`all` where true)
    Any(String, bool, f64),
    /// `(a).is_sign_negative()`
    Sign,
}

#[derive(Clone, Debug)]
pub enum For {
    Range(String, usize),
    /// `i in lo..hi`
    Span(String, usize, usize),
    /// `i in lo..K{hi}`: an end named, so the loop is never written out
    Named(String, usize, usize),
    /// `i in (lo..hi).rev()`
    Back(String, usize, usize),
    /// `j in i + 1..3`, `i` an enclosing loop's index
    Tail(String, String),
    /// `j in 0..i`, `i` an enclosing loop's index: a range not constant
    Head(String, String),
    /// `k in lo..hi` (or `lo..=hi` with the flag) over signed literals,
    /// `lo` negative: offsets around an enclosing loop's index
    Signed(String, i64, i64, bool),
    /// `a in w.iter()`; with the flag `w.iter().for_each(|a| { … });`, its
    /// body leaving nothing early
    Iter(String, String, bool),
    /// `i in 0..s.len()`, `s` a helper's slice
    Len(String, String),
    Enum(String, String, String),
    Zip(String, String, String, String),
    /// `c in w.chunks_exact(k)` (form 0), `w.windows(k)` (1) or
    /// `w.chunks(k)` (2), with `(j, c)` and `.enumerate()` where the index
    /// is named: the chunk a view of `w`
    Chunks(String, String, u8, usize, Option<String>),
}

#[derive(Clone, Debug)]
pub enum S {
    Let(String, E),
    /// compound assignment `+= -= *= /=`, or `=` whose value reads the name
    Assign(String, &'static str, E),
    /// `t op= { t = t * 0.5 + e; v }`: the value assigns the name it
    /// updates, and Rust reads the name after the value (`v` reads the
    /// new `t`: `0.9 + t * 0.05` for `*=`, `t * 0.1` otherwise)
    AssignFirst(String, &'static str, E),
    /// `h[i] op= { h[i] = h[i] * 0.5 + e; v }`: [`S::AssignFirst`] on an
    /// element of a local array
    SetArrFirst(String, Ix, &'static str, E),
    /// `{ let mut q = start; h[q] op= { q = (q + 1) % len; v }; }`: an
    /// element write whose value moves its own index on, so the place is
    /// the element after `start` (Rust evaluates the value first). `v`
    /// reads `e` and (but for `*=`) the element the write lands on.
    /// `(array, len, start, op, e)`
    SetArrMoved(String, usize, usize, &'static str, E),
    /// `let mut h = [0.0; n]` (None) or an array literal
    LetArr(String, usize, Option<Vec<E>>),
    /// an array of three made by a closure over another of three, `src`:
    /// `let m = src.map(|v| e);` (`e` reading `v`), or with the flag
    /// `let m: [f64; 3] = std::array::from_fn(|v| e);` (`e` reading
    /// `src[v]`)
    Made(String, String, String, E, bool),
    /// `let mut m = [[0.0; n]; n]` (None) or a literal of `n` rows, with the
    /// flag at the end of a block, the first row's last element bound there:
    /// `{ let m_l: f64 = e0n; [[…, m_l], …] }`
    LetMat(String, usize, Option<Vec<Vec<E>>>, bool),
    /// `m[i][j] op e` on a local matrix of `n` rows and columns
    SetMat(String, Ix, Ix, usize, &'static str, E),
    LetVec(String, Vec<E>),
    /// `let mut h = vec![e; 3]` (or `[e; 3]` without the first flag; `e`
    /// is `0.0` where absent); among the program's outputs (as `h[0]`) only
    /// with the second flag, so that loops writing it may be fused
    LetFill(String, Option<E>, bool, bool),
    SetArr(String, Ix, &'static str, E),
    /// a `Vec` of three filled by `push` from empty, its element reading
    /// the loop's index `k` (named `hk` after the `Vec` `h`). Fields: the
    /// `Vec`, `k`, the element, the form, and among the outputs as
    /// `LetFill`'s last flag. Forms: `Vec::new()` and `for k in 0..3usize`
    /// (0), `Vec::with_capacity(3)` and `(0..3).rev()` (1), `vec![]` and a
    /// triangle `for k_o in 0..2 { for k in k_o..2 { … } }` (2), `for (k, _)
    /// in (0..3).zip(0..3)` (3), `for k in 0..3usize { let k = 2 - k; … }`
    /// (4), three pushes in one iteration, `for _ko in 0..1usize { let k =
    /// 0; h.push(…); let k = 1; … }` (5), zeros pushed by `for _ in 0..3`
    /// (6, `k` is `_`); pushes an iteration may skip (cut to the pushes
    /// made), three in all: a loop of six left by `break` after three (7),
    /// every other iteration passed over by `continue` (8), a push in each
    /// arm of a `match` (9), a push while `len()` is below three (10), and
    /// the same where the second iteration pushes only if its element is
    /// above a constant (11)
    Pushed(String, String, E, u8, bool),
    /// `let (p, q) = (x, y);`, or with the flag a tuple a branch assigns,
    /// taken apart after it: `let mut pqt = (x, y); if x > 0.25 { pqt = (y
    /// * 0.5, x); } let (p, q) = pqt;`
    LetTuple(String, String, E, E, bool),
    For(For, Vec<S>),
    /// `let mut i = 0; while i < n && c { …; i += 1; }`, or (form 1)
    /// `loop { if !(i < n && c) { break; } …; i += 1; }`, or (form 2) a
    /// `while let Some(_) = queue.pop()` over `n` constants that breaks
    /// unless `c`
    While(String, usize, Option<Cond>, Vec<S>, u8),
    If(Cond, Vec<S>, Vec<S>),
    Match(Vec<Vec<S>>),
    Return(Cond, E),
    /// `if c { break; }` (with the flag) or `if c { continue; }`, in a loop
    Exit(Cond, bool),
    /// `let n = n * 0.5 + e;` shadowing a scalar inside a nested block, then
    /// `m += n.tanh() * 0.1;` (so that the shadow is read)
    Shadow(String, E, String),
    /// `let i = i + k;`: a loop's index shadowed inside its body
    ShiftIdx(String, usize),
    /// `let mut g = vec![e; 3 + i % 2];`: a `Vec` made in a loop's body,
    /// its length read from the loop's index `i`
    LetScratch(String, E, String),
    /// `let p = r * m + c;`: a named index into a grid of rows of `m`
    /// (a literal or a named constant), `r` and `c` loops' indices
    LetIdx(String, String, String, String),
    /// `let n = e;` shadowing a top-level binding, never `mut`
    ShadowLet(String, E),
    /// `if c { break 'label; }` or `continue 'label;`: to a loop around
    /// the innermost one (or that one)
    ExitTo(Cond, bool, String),
    /// a whole-array operation on a local `[f64; 3]`
    Whole(String, Whole),
    /// `std::mem::swap(&mut a, &mut b)` of two scalars
    SwapScalars(String, String),
    /// `{ let mut g = vec![0.0; 3 + i % 3]; g[0] = h[1] * 0.5 + e;
    /// g[1] = h[2]; g[2] = h[0]; h = g; … h = g3; }`: the `Vec` `h`
    /// replaced by one of another length in each iteration of the loop
    /// over `i`, its last element read, and replaced by one of three again
    Regrow(String, String, E),
    /// `let h = if c { [..] } else { [..] };` (an array, with the flag) or
    /// `let (p, q) = if c { (..) } else { (..) };`
    LetIf(Vec<String>, bool, Cond, Vec<E>, Vec<E>),
    /// `let mut i = 0; let t = loop { …; if i + 1 >= n || c { break e; }
    /// i += 1; };`; with the flag the value left as a pair, `let (ta, tb)
    /// = loop { … break (e * 0.75, e * 0.25); … }; let t = ta + tb;`
    LoopValue(String, String, usize, Cond, Vec<S>, E, bool),
    /// `let f = |x: f64| e;`: a closure of one scalar that reads only its
    /// parameter, the knobs and the untracked parameter
    LetClosure(String, String, E),
    /// `let v = &w[lo..hi];` (or `&w[i + lo..i + hi]`, `i` a loop's index):
    /// a view of an array, read until its block ends; by its form (`View`)
    /// a copy of the part or a half of `split_at`
    View(String, String, usize, usize, Option<String>, View),
    /// `h = w[lo..hi].to_vec();` (or `w[i + lo..i + hi]`): a `Vec` in scope
    /// made anew from a part of as many elements (`w` may be `h`); by the
    /// last field, of all of `w`: `h = w.to_vec();` (1), `h =
    /// w.clone();` (2) or `h.clone_from(&w);` (3; `w` a `Vec` in both
    /// dialects)
    Recopy(String, String, usize, usize, Option<String>, u8),
    /// two `Vec`s swapped: `(c, r) = (r, c);` (0), `let (c_p, c_q) = (r,
    /// c); c = c_p; r = c_q;` (1) or `std::mem::swap(&mut c, &mut r);` (2)
    SwapVecs(String, String, u8),
    /// `let r = &w[k];`: an element by reference, read as `*r` (or as a
    /// method's receiver) until its block ends
    RefElem(String, String, usize),
    /// `let mut k = 0usize; let r = &mut k;`, then `m += (w[*r] * a).tanh()
    /// * 0.1; *r += 1; m += (w[*r] * c).tanh() * 0.1;`: a counter moved on
    /// through a mutable borrow, the same tokens `w[*r]` then reading the
    /// next element (the fields: `k`, `r`, `w`, `m`, `a`, `c`)
    Cursor(String, String, String, String, f64, f64),
    /// `if let Some(r) = w.get(k) { m += then; } else { m += other; }`
    /// (`k` may be past the end), by the form `Some(r)` (0), `Some(&r)` (1)
    /// or `Some(r)` of `w.get(k).copied()` (2), or `Some(r)` of a part
    /// `w.get(k..k + 2)` (4), `Some(&r)` of `w.last()` (5), `Some(r)` of
    /// `w.first()` (6); or (3) `m +=
    /// w.get(k).copied().unwrap_or(other).tanh() * 0.1;` (`last()` or
    /// `first()` in place of `get(k)` in two thirds)
    IfGet(String, String, usize, u8, String, E, E),
    /// `{ let w_keys: Vec<f64> = w.iter().map(|v| mica::detach(*v))
    /// .collect(); let mut w_order: Vec<usize> = (0..w.len()).collect();
    /// w_order.sort_by(…); m += w[w_order[0]] * c + w[w_order[n - 1]].sin()
    /// * 0.5; }`: a knob's elements read in sorted order, as the message
    /// for sorting recorded values says to write it (fields: `w`, its
    /// length, `m`, `c`)
    Sorted(String, usize, String, f64),
    /// `let mut c: &[f64] = &d;`: a borrowed slice bound to an array in
    /// scope (later rebound by `S::Rebind`)
    LetBorrow(String, String),
    /// `c = &w;` (`c = w;` where `w` is a reference, by its type in each
    /// dialect): a borrowed slice rebound to all of another array
    Rebind(String, String, (Src, Src)),
    /// `let [a, _, c] = h;` (or `*h` where `h` is a reference, in Mica's
    /// dialect and in the dual numbers'): the elements named, `None` a `_`
    Unpack(Vec<Option<String>>, String, (bool, bool)),
    /// `for v in h.iter_mut() { *v op e; }` (with `(j, v)` and
    /// `.enumerate()` where the index is named) over a local array; with
    /// the flag `h.iter_mut().for_each(|v| *v op e);`; with the last
    /// field, a copy `hz` of `h` walked with it by a zip of mutable
    /// iterators (`.zip(&mut hz)` where it is set), `let mut hz = h; for
    /// (v, vz) in h.iter_mut().zip(hz.iter_mut()) { *v op e; *vz += *v *
    /// 0.5; } h[0] += hz[1] * 0.5;`
    MutEach(
        String,
        String,
        &'static str,
        E,
        Option<String>,
        bool,
        Option<bool>,
    ),
    /// a call to block helper `u{k}`: `let r = u0(..);` (an array),
    /// `let (p, q) = u0(..);`, `let t = u0(..);` or `u0(..);` by what it
    /// returns
    Call(Vec<String>, usize, Ret, Vec<Arg>),
}

/// How `S::View` takes its part.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum View {
    /// `let v = &w[lo..hi];`
    Ref,
    /// `let v = w[lo..hi].to_vec();`
    Copy,
    /// `let (v, _) = w.split_at(hi);` (`lo` is 0)
    Head,
    /// `let (_, v) = w.split_at(lo);` (`hi` is the length)
    Tail,
}

#[derive(Clone, Debug)]
pub enum Whole {
    /// `h = [a, b, c];`
    Assign(Vec<E>),
    /// `h.fill(e);`
    Fill(E),
    /// `h.swap(i, j);`
    Swap(usize, usize),
    /// `h.copy_from_slice(&g);`
    CopyFrom(String),
    /// `std::mem::swap(&mut h, &mut g);`
    MemSwap(String),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    Scalar,
    Arr(usize),
    Slice(usize),
    /// `&[[f64; C]; R]`, read as `m[i][j]`
    Mat(usize, usize),
}

#[derive(Clone, Debug)]
pub struct Program {
    pub knobs: Vec<(String, Shape)>,
    pub window: bool,
    /// written entirely in `f32`
    pub f32: bool,
    /// written generic over its float (`fn p_f<T: mica::Real>`, literals
    /// `T::from(0.5).unwrap()`), used at `f64` or (with `f32`) at `f32`
    pub generic: bool,
    /// the knobs are the fields of one `#[derive(mica::Knob)]` struct
    /// `P{id}K`, tracked whole by Mica's function (`#[tracked] kn:
    /// &P{id}K`, or a window's `#[tracked] let kn: P{id}K`); the plain
    /// adjoint keeps one parameter per knob
    pub structs: bool,
    /// a struct program's second function is a method of `P{id}K` (a
    /// `#[tape] impl` with `#[tracked] &self`), called `kn.s(cp)` — with an
    /// array out, read `kn.s(cp)[0]`, when `struct_array` — not a free
    /// function given the struct whole
    pub struct_method: bool,
    pub struct_array: bool,
    /// the second function reads a knob of `kn.items[1]` through a walk
    /// of the items (`for (j, it) in kn.items.iter().enumerate() { if j ==
    /// 1 { … it.n … } }`) instead of by index
    pub struct_walk: bool,
    /// Mica's function reads the knobs from a copy of the struct (`let
    /// mut kc = kn.clone();`), one of them written through it
    pub struct_copy: bool,
    pub helper: Vec<S>,
    pub helper_out: E,
    /// the method `m`'s body and value, and its receiver's field `s`
    pub method: Vec<S>,
    pub method_out: E,
    pub obj: f64,
    pub body: Vec<S>,
    /// block helpers: the function is then written in a `#[tape] mod`
    pub us: Vec<UHelper>,
    /// the point: knob coordinates, the untracked parameter, the match key
    pub at: Vec<f64>,
    pub cp: f64,
    pub k: usize,
}

// ---------------------------------------------------------------- generation

#[derive(Clone)]
struct Arr {
    name: String,
    len: usize,
    /// writable local `[f64; 3]` (may be passed to `g`)
    local: bool,
    /// a `.iter()` over it yields references; knob slices are read by index
    iterable: bool,
    /// its type in Mica's dialect and in the dual numbers'
    src: (Src, Src),
    /// a helper's out-parameter: written by element only
    out: bool,
    /// a helper's slice: `len` is a least length, `for i in 0..s.len()`
    dynamic: bool,
    /// a view (`let v = &w[a..b];`): a part of `w`, which a borrowed
    /// slice is not rebound to (refused with a hint: copy it)
    part: bool,
}

impl Arr {
    fn new(name: String, len: usize, local: bool, iterable: bool, src: Src) -> Arr {
        Arr {
            name,
            len,
            local,
            iterable,
            src: (src, src),
            out: false,
            dynamic: false,
            part: false,
        }
    }
}

#[derive(Clone, Default)]
struct Scope {
    scalars: Vec<(String, f64)>,
    /// top-level mutable scalars (assignment targets)
    muts: Vec<String>,
    arrays: Vec<Arr>,
    mats: Vec<(String, usize, usize)>,
    derefs: Vec<String>,
    idx: Vec<(String, usize)>,
    in_loop: usize,
    /// inside a `for` (`Some(true)`: `break` or `continue`) or a `while`
    /// whose counter steps at the end of its body (`Some(false)`: `break`)
    exits: Option<bool>,
    /// the labels of the loops around, innermost last, and whether a
    /// `continue` to each may be written
    labels: Vec<(String, bool)>,
    /// inside a `loop` whose value a `let` takes: no `return` there
    in_value: bool,
    /// loop indices of `for i in 0..s.len()`, with their slice `s`
    lens: Vec<(String, String)>,
    /// closures bound by `let`, with a bound on their values
    closures: Vec<(String, f64)>,
    /// the indices of `for i in 0..n` loops around (a `let i = i + 1;`
    /// may shadow one)
    fors: Vec<String>,
    /// `Vec`s that may be made anew (`h = w[..].to_vec();`): declared
    /// `mut`, not borrowed by a view or a loop in use
    vecs: Vec<String>,
}

/// A block helper's signature, as its callers see it.
#[derive(Clone)]
struct Sig {
    kinds: Vec<PKind>,
    ret: Ret,
    /// a bound on its scalar value
    bound: f64,
    /// it leaves a loop (`break`, `continue`, `break value`) or returns
    /// early, or calls a helper that does
    flow: bool,
}

struct Gen {
    rng: Rng,
    /// a second stream, for choices added after the mutation audit: a
    /// choice drawn from it leaves the rest of a program as it was, so
    /// the programs that catch the other mutants at a fixed seed stay
    rare: Rng,
    /// a third, for the methods of whole steps and signs (`stepped`),
    /// which leaves the second's draws as they were
    steps: Rng,
    /// a fourth, for the `Vec`s filled by `push` (`vec_of_three`)
    pushes: Rng,
    /// a fifth, for the reads in sorted order (`sorted_reads`)
    sorts: Rng,
    /// a sixth, for the `Option`s made and tested in place (`E::Opt`)
    options: Rng,
    /// a seventh, for the chains' values kept by a `filter` after their
    /// `map` (`Chain::kept`)
    keeps: Rng,
    /// an eighth, for the updates whose value assigns the name first
    /// (`S::AssignFirst`)
    firsts: Rng,
    /// a ninth, for the element writes whose value moves their index
    /// (`S::SetArrMoved`)
    moves: Rng,
    /// a tenth, for the chains over a matrix's rows (`Chain::rows`)
    rows: Rng,
    /// an eleventh, for the `Option`s of chains ended by `.unwrap_or(d)`
    /// (`Chain::or`)
    empties: Rng,
    fresh: usize,
    window: bool,
    helper: bool,
    /// the program has a method `m` to call
    method: bool,
    /// the program is generic over its float: no `custom` rule (it is
    /// `f64` or `f32`)
    generic: bool,
    /// generating the helper or the method: no `cp`, no `k`, no calls
    plain: bool,
    /// generating the method: `self.s` may be read
    in_method: bool,
    knobs: Vec<(String, Shape)>,
    /// the block helpers' signatures and the bounds of their scalar values
    us: Vec<Sig>,
    /// how many of them may be called here (a helper calls earlier ones)
    ucount: usize,
    /// generating an element of a `vec!` or the value of a `break`: no
    /// calls to helpers that leave a loop or return early (see `FLOW_CALLS`)
    no_flow: bool,
    /// generating a block helper: what its `return` gives
    ret: Option<Ret>,
}

/// Whole-array operations (assignment, `.fill`, `.swap`, copies,
/// `std::mem::swap` of arrays) and tuples and arrays out of an `if`: a
/// switch to take them out while a fault they show is tracked down.
const WHOLE_ARRAYS: bool = true;

/// Sub-slices (`&w[1..3]`) passed to a block helper's slice parameter,
/// which the helper may iterate with `.iter()` (once a fault, see
/// `regression_helper_iterates_a_sub_slice` in `tests/differential.rs`):
/// a switch to take them out while other faults are tracked down.
const SUB_SLICES: bool = true;

/// Block helpers' parameters left unread (named `_s`), arrays passed to
/// them (once a fault, see `regression_helper_leaves_a_borrowed_parameter_unread`
/// in `tests/differential.rs`): a switch to read every one (and write
/// every out-parameter) while other faults are tracked down.
const UNREAD_PARAMS: bool = true;

/// Block helpers' by-value array parameters changed in the body (`mut v:
/// [f64; 3]`, a copy of the array passed: a fault, see
/// `regression_array_copied_from_an_array` in `tests/differential.rs`): a
/// switch to take them out while other faults are tracked down.
const COPIED_ARRAYS: bool = true;

/// Early `return`s in block helpers that return an array (once a fault, see
/// `regression_helper_returns_an_array_early` in `tests/differential.rs`):
/// a switch to take them out while other faults are tracked down.
const ARRAY_RETURNS: bool = true;

/// `for i in 0..s.len()` over a helper's slice, and `for i in 0..z.len() {
/// z[i] = …; }` over its out-slice (once a fault where the loop runs in a branch
/// or after an early `return`: see `regression_len_loop_in_a_branch` in
/// `tests/differential.rs`): a switch to take them out while other faults
/// are tracked down.
const LEN_LOOPS: bool = true;

/// A held reference borrowed again for a helper's `&[f64; 3]` (`u(&w)`,
/// `w: &[f64; 3]`, a needless borrow clippy flags): where the helper
/// passes `*a` on by value, rustc's error at `w` says to write `&*w`
/// (Mica writes places, not types, where it inlines). The generator passes
/// `w`.
const REBORROWS: bool = false;

/// Block helpers' parameters named as the entry point's knobs (`x0`, …):
/// the inlined body shadows them (once a fault, see
/// `regression_helper_parameter_named_as_the_tracked_one` and
/// `regression_helper_parameter_named_as_a_window_binding` in
/// `tests/differential.rs`): a switch to name them apart (`qx0`) while
/// other faults are tracked down.
const CLASHING_NAMES: bool = true;

/// Calls to block helpers that leave a loop or return early inside a
/// `vec![…]` or the value of a `break`: Mica says "this `loop` over
/// recorded values is not supported" (or "this `break`/`continue` is not
/// supported"), so the generator does not write them.
const FLOW_CALLS: bool = false;

/// Iterator chains over arrays (`map`, `zip`, `enumerate`, `rev`,
/// `skip`, `take`, `filter`, `sum`, `product`, `fold`, `max`, `min_by`) and
/// closures bound by `let` (called, and passed to `map`): a switch to take
/// them out while a fault they show is tracked down.
const CHAINS: bool = true;

/// Views of arrays (`let v = &w[1..3];`) and loops over `chunks`,
/// `chunks_exact` and `windows` (the chunk a view): a switch to take them
/// out while a fault they show is tracked down.
const VIEWS: bool = true;
/// Elements by reference and by `get` (`let r = &w[k];`, `if let Some(r) =
/// w.get(k)`, `.copied().unwrap_or(c)`), in block helpers too (once faults:
/// `an_element_by_get_in_an_inlined_helper` in
/// `tests/tangent_regressions.rs`).
const ELEMENT_READS: bool = true;

/// The chunk sources, by form.
const CHUNKS: [&str; 3] = ["chunks_exact", "windows", "chunks"];

const MONO: [&str; 24] = [
    "sqrt", "cbrt", "exp", "exp2", "exp_m1", "ln", "log2", "log10", "ln_1p", "sin", "cos", "tan",
    "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "abs", "recip",
    "step",
];
const STEPS: [&str; 5] = ["floor", "ceil", "round", "trunc", "signum"];

fn b(e: E) -> Box<E> {
    Box::new(e)
}

fn sq_plus(e: E, c: f64) -> E {
    E::Bin('+', b(E::Bin('*', b(e.clone()), b(e))), b(E::Lit(c)))
}

/// `e + knob * 0.25`: a value that surely carries a slope, to start a
/// loop-carried value from (see the regression tests).
fn with_knob(e: E, knobs: &[(String, Shape)]) -> E {
    let k = match &knobs[0] {
        (x, Shape::Scalar) => E::Var(x.clone()),
        (m, Shape::Mat(r, c)) => E::Index2(m.clone(), Ix::Const(0), *r, Ix::Const(0), *c),
        (w, _) => E::Index(w.clone(), Ix::Const(0)),
    };
    E::Bin('+', b(e), b(E::Bin('*', b(k), b(E::Lit(0.25)))))
}

fn fit(e: (E, f64), limit: f64) -> (E, f64) {
    if e.1 > limit {
        (E::M1("tanh", b(e.0)), 1.0)
    } else {
        e
    }
}

impl Gen {
    fn name(&mut self, p: &str) -> String {
        self.fresh += 1;
        format!("{p}{}", self.fresh)
    }

    /// An index into `a`: a constant, or a loop's index (reduced modulo
    /// the length where it may exceed it; a write into a slice of unknown
    /// length takes a constant instead, or the index of a loop over it).
    fn pick_ix(&mut self, s: &Scope, a: &Arr, write: bool) -> Ix {
        if !s.idx.is_empty() && self.rng.chance(0.7) {
            let (i, n) = s.idx[self.rng.below(s.idx.len())].clone();
            if s.lens.iter().any(|(j, arr)| *j == i && *arr == a.name) {
                return Ix::Var(i, false);
            }
            if n <= a.len {
                return Ix::Var(i, false);
            }
            if !write || a.len == 3 {
                return Ix::Var(i, true);
            }
        }
        Ix::Const(self.rng.below(a.len))
    }

    fn leaf(&mut self, s: &Scope) -> (E, f64) {
        loop {
            match self.rng.below(7) {
                0..=2 if !s.scalars.is_empty() => {
                    let (n, bd) = s.scalars[self.rng.below(s.scalars.len())].clone();
                    return (E::Var(n), bd);
                }
                3 if !s.arrays.is_empty() => {
                    let a = s.arrays[self.rng.below(s.arrays.len())].clone();
                    let ix = if VIEWS && !a.out && self.rng.chance(0.08) {
                        match self.rng.chance(0.3) {
                            true => Ix::IterEnd(self.rng.chance(0.5)),
                            false => Ix::End(self.rng.chance(0.5)),
                        }
                    } else {
                        self.pick_ix(s, &a, false)
                    };
                    return (E::Index(a.name, ix), 4.0);
                }
                4 if !s.mats.is_empty() && self.rng.chance(0.5) => {
                    let (m, r, c) = s.mats[self.rng.below(s.mats.len())].clone();
                    let mut ix = |n: usize| {
                        if !s.idx.is_empty() && self.rng.chance(0.6) {
                            let (i, l) = s.idx[self.rng.below(s.idx.len())].clone();
                            Ix::Var(i, l > n)
                        } else {
                            Ix::Const(self.rng.below(n))
                        }
                    };
                    let (i, j) = (ix(r), ix(c));
                    return (E::Index2(m, i, r, j, c), 1.5);
                }
                4 if !s.derefs.is_empty() => {
                    let a = s.derefs[self.rng.below(s.derefs.len())].clone();
                    return (E::Deref(a, self.rng.chance(0.5)), 4.0);
                }
                4 if self.in_method && self.rng.chance(0.5) => return (E::SelfS, 1.0),
                5 => {
                    if !s.idx.is_empty() && self.rng.chance(0.3) {
                        let (i, n) = s.idx[self.rng.below(s.idx.len())].clone();
                        return (E::IdxF(i), n as f64);
                    }
                    if !self.plain && self.rng.chance(0.5) {
                        return (E::Param, 1.0);
                    }
                    let l = self.rng.lit(-1.0, 1.0);
                    return (E::Lit(l), l.abs());
                }
                6 => {
                    let l = self.rng.lit(-1.0, 1.0);
                    return (E::Lit(l), l.abs());
                }
                _ => {}
            }
        }
    }

    fn cond(&mut self, s: &Scope, d: usize) -> Cond {
        let iterable: Vec<&Arr> = s.arrays.iter().filter(|a| a.iterable && !a.out).collect();
        if !iterable.is_empty() && self.rng.chance(0.08) {
            let w = iterable[self.rng.below(iterable.len())].name.clone();
            return Cond {
                a: E::Lit(0.0),
                gt: true,
                b: E::Lit(0.0),
                test: Some(Test::Any(w, self.rng.chance(0.5), self.rng.lit(-0.5, 0.5))),
            };
        }
        let a = self.expr(s, d).0;
        if self.rng.chance(0.05) {
            return Cond {
                a,
                gt: true,
                b: E::Lit(0.0),
                test: Some(Test::Sign),
            };
        }
        let b = if self.rng.chance(0.5) {
            E::Lit(self.rng.lit(-0.5, 0.5))
        } else {
            self.expr(s, d).0
        };
        Cond {
            a,
            gt: self.rng.chance(0.5),
            b,
            test: None,
        }
    }

    /// An expression and a bound on its magnitude.
    fn expr(&mut self, s: &Scope, d: usize) -> (E, f64) {
        if d == 0 || self.rng.chance(0.25) {
            return self.leaf(s);
        }
        let d = d - 1;
        if self.ucount > 0 && self.rng.chance(0.1) {
            if let Some(call) = self.ucall_expr(s, d) {
                return call;
            }
        }
        if CHAINS && self.rng.chance(0.07) {
            if let Some(chain) = self.chain(s, d) {
                return fit(chain, 8.0);
            }
        }
        if CHAINS && !s.closures.is_empty() && self.rng.chance(0.1) {
            let (f, bf) = s.closures[self.rng.below(s.closures.len())].clone();
            let (x, _) = fit(self.expr(s, d), 4.0);
            return (E::CallC(f, b(x)), bf);
        }
        // the sine and the cosine of one name, whose slopes read each
        // other's values (`reverse/trig.rs`): both here, or one here and the
        // other wherever another pick of the name lands (an arm, a loop, after
        // a fused loop)
        if !s.scalars.is_empty() && self.rng.chance(0.06) {
            let (n, _) = s.scalars[self.rng.below(s.scalars.len())].clone();
            let f = ["sin", "cos"][self.rng.below(2)];
            let one = E::M1(f, b(E::Var(n.clone())));
            if self.rng.chance(0.5) {
                return (one, 1.0);
            }
            let other = E::M1(if f == "sin" { "cos" } else { "sin" }, b(E::Var(n)));
            return (E::Bin(['+', '*'][self.rng.below(2)], b(one), b(other)), 2.0);
        }
        match self.rng.below(16) {
            0 | 1 => {
                let (x, bx) = self.expr(s, d);
                let (y, by) = self.expr(s, d);
                let op = ['+', '-'][self.rng.below(2)];
                fit((E::Bin(op, b(x), b(y)), bx + by), 8.0)
            }
            2 | 3 => {
                let (x, bx) = fit(self.expr(s, d), 3.0);
                let (y, by) = fit(self.expr(s, d), 3.0);
                fit((E::Bin('*', b(x), b(y)), bx * by), 8.0)
            }
            4 => {
                let (x, bx) = fit(self.expr(s, d), 4.0);
                let (y, _) = fit(self.expr(s, d), 4.0);
                (E::Bin('/', b(x), b(sq_plus(y, 0.5))), bx * 2.0)
            }
            5 => {
                let (x, bx) = self.expr(s, d);
                (E::Neg(b(x)), bx)
            }
            6..=9 => {
                let e = self.method(s, d);
                self.stepped(e)
            }
            10 => {
                let (x, bx) = fit(self.expr(s, d), 2.0);
                let (y, by) = fit(self.expr(s, d), 2.0);
                let (z, bz) = fit(self.expr(s, d), 2.0);
                (E::MulAdd(b(x), b(y), b(z)), bx * by + bz)
            }
            11 => {
                let (x, bx) = self.expr(s, d);
                let f = ["sigmoid", "relu", "softplus", "detach"][self.rng.below(4)];
                let bd = match f {
                    "sigmoid" => 1.0,
                    _ => bx + 1.0,
                };
                (E::Fun(f, b(x)), bd)
            }
            12 if !self.plain => {
                let (x, bx) = fit(self.expr(s, d), 4.0);
                if self.method && self.rng.chance(0.7) {
                    let (y, _) = fit(self.expr(s, d), 4.0);
                    (E::CallM(b(x), b(y)), 4.0)
                } else if self.helper && (self.generic || self.rng.chance(0.5)) {
                    let (y, _) = fit(self.expr(s, d), 4.0);
                    (E::CallH(b(x), b(y)), 4.0)
                } else if self.generic {
                    (E::Fun("detach", b(x)), bx + 1.0)
                } else {
                    (E::Custom(b(x)), bx * 1.25 + 1.0)
                }
            }
            13 if self.rng.chance(0.15) => {
                let g = self.name("g");
                let (x, bx) = fit(self.expr(s, d), 4.0);
                let mut inner = s.clone();
                inner.scalars.push((g.clone(), bx));
                let (a, ba) = self.expr(&inner, d);
                // (now and then an `Option` made in place instead, its
                // `None` arm not reading `g`: from a stream of its own)
                let opt = self.options.chance(0.3);
                let (o, bo) = self.expr(if opt { s } else { &inner }, d);
                let c = self.rng.lit(-0.5, 0.5);
                if opt {
                    let by_if = self.options.chance(0.5);
                    return (E::Opt(g, b(x), c, b(a), b(o), by_if), ba.max(bo));
                }
                (E::Guard(g, b(x), c, b(a), b(o)), ba.max(bo))
            }
            13 => {
                let c = self.cond(s, d);
                let (x, bx) = self.expr(s, d);
                let (y, by) = self.expr(s, d);
                (E::If(Box::new(c), b(x), b(y)), bx.max(by))
            }
            14 if !self.plain => {
                let arms: Vec<(E, f64)> = (0..2 + self.rng.below(2))
                    .map(|_| self.expr(s, d))
                    .collect();
                let bd = arms.iter().map(|a| a.1).fold(0.0, f64::max);
                (E::Match(arms.into_iter().map(|a| a.0).collect()), bd)
            }
            _ => {
                let locals: Vec<&Arr> = s.arrays.iter().filter(|a| a.local).collect();
                if self.helper && !self.plain && !locals.is_empty() && self.rng.chance(0.5) {
                    let a = locals[self.rng.below(locals.len())].name.clone();
                    if self.rng.chance(0.5) {
                        return (E::CallV(a, self.rng.below(6)), 4.0);
                    }
                    return (E::CallG(a), 4.0);
                }
                let (x, bx) = fit(self.expr(s, d), 4.0);
                let (y, by) = fit(self.expr(s, d), 4.0);
                let u = self.name("u");
                // now and then the block's helper generic over a length
                // instead (from a stream of its own: the rest stays)
                if self.ucount > 0 && !self.plain && !self.generic && self.keeps.chance(0.3) {
                    let source = (!locals.is_empty() && self.keeps.chance(0.6))
                        .then(|| locals[self.keeps.below(locals.len())].name.clone());
                    let c = E::Lit(self.keeps.lit(-1.0, 1.0));
                    return (E::CallN(source, vec![x, c, y.clone()], b(y)), 4.5);
                }
                (E::Shadow(u, b(x), b(y)), bx * 0.5 + 0.5 + by)
            }
        }
    }

    /// Now and then a method of whole steps or signs around `e`: `fract`,
    /// `copysign`, `midpoint`, `rem_euclid` (with slopes), `div_euclid`
    /// and `round_ties_even` (without); drawn from a stream of their own,
    /// so the rest of the program stays as it was. (A generic program's float
    /// has `fract` and `copysign` only.)
    fn stepped(&mut self, (e, be): (E, f64)) -> (E, f64) {
        if !self.steps.chance(0.04) {
            return (e, be);
        }
        // (the bounds as loose as the rest of the program's: a bound that
        // shrank would change what follows)
        // the second operand a literal, or half the time recorded too
        // (`(e² + c) / 4`, at least ¼, and below `|e|` where `|e| > 2`:
        // whole quotients other than 0 and -1 give it a slope)
        let forms = if self.generic { 2 } else { 6 };
        let c = self.steps.lit(1.0, 1.7);
        let (other, bo, least) = match self.steps.chance(0.5) {
            true => {
                let quarter = E::Bin('*', b(sq_plus(e.clone(), c)), b(E::Lit(0.25)));
                (quarter, (be * be + c) * 0.25, 0.25)
            }
            false => (E::Lit(c), c, c),
        };
        match self.steps.below(forms) {
            0 => (E::M1("fract", b(e)), be.max(1.0)),
            1 => {
                let other = match other {
                    E::Lit(c) if self.steps.chance(0.5) => E::Lit(-c),
                    other => other,
                };
                (E::M2("copysign", b(e), b(other)), be)
            }
            2 => (E::M2("midpoint", b(e), b(other)), be.max(bo)),
            3 => (E::M2("rem_euclid", b(e), b(other)), be.max(bo)),
            4 => (E::M2("div_euclid", b(e), b(other)), be / least + 1.0),
            _ => (E::M1("round_ties_even", b(e)), be + 1.0),
        }
    }

    fn method(&mut self, s: &Scope, d: usize) -> (E, f64) {
        if self.rng.chance(0.3) {
            let (x, bx) = fit(self.expr(s, d), 4.0);
            let (y, by) = fit(self.expr(s, d), 4.0);
            return match self.rng.below(7) {
                0 => (E::M2("min", b(x), b(y)), bx.max(by)),
                1 => (E::M2("max", b(x), b(y)), bx.max(by)),
                2 => (E::M2("atan2", b(x), b(sq_plus(y, 0.5))), 3.2),
                3 => (E::M2("hypot", b(x), b(sq_plus(y, 0.5))), bx + by * by + 0.5),
                4 => {
                    let base = if self.rng.chance(0.5) {
                        E::Lit(3.0)
                    } else {
                        sq_plus(y, 2.0)
                    };
                    (E::M2("log", b(sq_plus(x, 0.5)), b(base)), bx * bx)
                }
                5 => {
                    let e = if self.rng.chance(0.5) {
                        E::Lit(1.5)
                    } else {
                        E::M1("tanh", b(y))
                    };
                    let x = sq_plus(fit((x, bx), 1.5).0, 0.5);
                    (E::M2("powf", b(x), b(e)), 6.0)
                }
                _ => {
                    let lo = self.rng.lit(-1.0, 0.0);
                    let hi = self.rng.lit(0.0, 1.0) + 0.01;
                    (
                        E::M2("clamp", b(x), b(E::Bin(',', b(E::Lit(lo)), b(E::Lit(hi))))),
                        1.0,
                    )
                }
            };
        }
        let (x, bx) = self.expr(s, d);
        let f = MONO[self.rng.below(MONO.len())];
        let pos = |x: E, bx: f64| (sq_plus(fit((x, bx), 4.0).0, 0.5), 16.5_f64);
        match f {
            "sqrt" | "cbrt" | "ln" | "log2" | "log10" | "recip" => {
                let (p, bp) = pos(x, bx);
                let bd = match f {
                    "sqrt" => bp.sqrt(),
                    "cbrt" => bp.cbrt(),
                    "recip" => 2.0,
                    _ => 4.0,
                };
                (E::M1(f, b(p)), bd)
            }
            "ln_1p" => {
                let x = fit((x, bx), 4.0).0;
                (E::M1(f, b(E::Bin('*', b(x.clone()), b(x)))), 3.0)
            }
            "exp" | "exp2" | "exp_m1" | "sinh" | "cosh" => {
                let (x, bx) = fit((x, bx), 2.0);
                (E::M1(f, b(x)), bx.exp() + 1.0)
            }
            "tan" => (E::M1(f, b(E::M1("tanh", b(x)))), 1.6),
            "asin" | "acos" | "atanh" => {
                let inner = E::Bin('*', b(E::M1("tanh", b(x))), b(E::Lit(0.9)));
                (E::M1(f, b(inner)), 3.2)
            }
            "acosh" => (E::M1(f, b(sq_plus(fit((x, bx), 4.0).0, 1.5))), 3.0),
            "step" => {
                let g = STEPS[self.rng.below(STEPS.len())];
                (E::M1(g, b(x)), bx + 1.0)
            }
            "abs" => (E::M1(f, b(x)), bx),
            "powi" => unreachable!(),
            _ => {
                if self.rng.chance(0.15) {
                    let (x, bx) = fit((x, bx), 2.0);
                    let n = 2 + self.rng.below(2) as i32;
                    return (E::Powi(b(x), n), bx.powi(n));
                }
                let bd = match f {
                    "asinh" => 3.0,
                    "atan" => 1.6,
                    "sin" | "cos" | "tanh" => 1.0,
                    _ => bx,
                };
                (E::M1(f, b(x)), bd)
            }
        }
    }

    /// A small update to a top-level mutable scalar, bounded per step.
    fn update(&mut self, s: &Scope, d: usize) -> Option<S> {
        if s.muts.is_empty() {
            return None;
        }
        let t = s.muts[self.rng.below(s.muts.len())].clone();
        let (e, _) = fit(self.expr(s, d), 1.0);
        let k = self.rng.below(7);
        // (drawn from a stream of its own, in place of a form that draws
        // nothing more: the rest of the program stays as it was)
        if k < 5 && self.firsts.chance(0.25) {
            return Some(S::AssignFirst(
                t,
                ["*=", "+=", "-="][self.firsts.below(3)],
                e,
            ));
        }
        Some(match k {
            0 => S::Assign(t, "+=", E::Bin('*', b(e), b(E::Lit(0.1)))),
            // a sum inside a difference, and inside a negation, each read
            // by the reverse of `sin` / `tanh`: evaluated again there with
            // its grouping, `(t - (t * 0.05 + e * 0.1)).sin()`
            5 | 6 => {
                let me = E::Var(t.clone());
                let inner = E::Bin(
                    '+',
                    b(E::Bin('*', b(me.clone()), b(E::Lit(0.05)))),
                    b(E::Bin('*', b(e), b(E::Lit(0.1)))),
                );
                let (f, outer) = match self.rng.below(2) {
                    0 => ("sin", E::Bin('-', b(me), b(inner))),
                    _ => ("tanh", E::Neg(b(inner))),
                };
                S::Assign(t, "=", E::M1(f, b(outer)))
            }
            // a difference on the right of `-=`: `t - (e * 0.1 - t * 0.05)`
            1 => {
                let tt = E::Bin('*', b(E::Var(t.clone())), b(E::Lit(0.05)));
                S::Assign(
                    t,
                    "-=",
                    E::Bin('-', b(E::Bin('*', b(e), b(E::Lit(0.1)))), b(tt)),
                )
            }
            2 => S::Assign(
                t,
                "*=",
                E::Bin('+', b(E::Lit(0.9)), b(E::Bin('*', b(e), b(E::Lit(0.1))))),
            ),
            3 => S::Assign(t, "/=", sq_plus(e, 1.0)),
            _ => {
                let me = E::Var(t.clone());
                S::Assign(
                    t,
                    "=",
                    E::M1(
                        "tanh",
                        b(E::Bin('+', b(me), b(E::Bin('*', b(e), b(E::Lit(0.5)))))),
                    ),
                )
            }
        })
    }

    /// Statements of a nested block: reads, array writes, updates of outer
    /// scalars, nested control flow.
    fn block(&mut self, s: &mut Scope, depth: usize, n: usize) -> Vec<S> {
        let mut out = Vec::new();
        let top = depth == 0;
        for _ in 0..n {
            if self.ucount > 0 && self.rng.chance(0.12) {
                let k = self.rng.below(self.ucount);
                if let Some(call) = self.ucall_stmt(s, k, top) {
                    out.extend(call);
                }
                continue;
            }
            if CHAINS && self.rng.chance(0.04) {
                self.closure(s, top, &mut out);
                continue;
            }
            if VIEWS && self.rng.chance(0.07) {
                out.extend(self.view(s));
                continue;
            }
            if VIEWS && top && self.rng.chance(0.04) {
                out.extend(self.carried_vec(s));
                continue;
            }
            if ELEMENT_READS && self.rng.chance(0.05) {
                out.extend(self.elem_ref(s));
                continue;
            }
            if ELEMENT_READS && self.rng.chance(0.12) {
                out.extend(self.if_get(s));
                continue;
            }
            let k = self.rng.below(if depth >= 2 { 6 } else { 13 });
            match k {
                // shadow an outer scalar (not an assignment target, whose
                // name must stay the outer one)
                0 if !top && self.rng.chance(0.4) => {
                    let cands: Vec<(String, f64)> = s
                        .scalars
                        .iter()
                        .filter(|(n, _)| !s.muts.contains(n))
                        .cloned()
                        .collect();
                    if cands.is_empty() || s.muts.is_empty() {
                        continue;
                    }
                    let (n, bn) = cands[self.rng.below(cands.len())].clone();
                    let (e, be) = fit(self.expr(s, 2), 1.0);
                    let m = s.muts[self.rng.below(s.muts.len())].clone();
                    s.scalars.retain(|(x, _)| *x != n);
                    s.scalars.push((n.clone(), bn * 0.5 + be));
                    out.push(S::Shadow(n, e, m));
                }
                0 | 1 => {
                    let t = self.name("t");
                    let (mut e, bd) = fit(self.expr(s, 3), 4.0);
                    if top {
                        // a loop-carried value must start from a value with a
                        // slope (Mica's documented limit)
                        e = with_knob(e, &self.knobs);
                    }
                    out.push(S::Let(t.clone(), e));
                    // an inner let is read by an update right after it
                    s.scalars.push((t.clone(), bd));
                    if top {
                        s.muts.push(t);
                    } else if !s.muts.is_empty() {
                        let m = s.muts[self.rng.below(s.muts.len())].clone();
                        let e = E::Bin('*', b(E::M1("tanh", b(E::Var(t)))), b(E::Lit(0.1)));
                        out.push(S::Assign(m, "+=", e));
                    }
                }
                2 | 3 => {
                    if let Some(u) = self.update(s, 3) {
                        out.push(u);
                    }
                }
                4 if self.rng.chance(0.35) => {
                    if let Some(w) = self.whole(s) {
                        out.push(w);
                    }
                }
                4 => {
                    let locals: Vec<Arr> = s
                        .arrays
                        .iter()
                        .filter(|a| a.local || a.out)
                        .cloned()
                        .collect();
                    let whole: Vec<Arr> = locals
                        .iter()
                        .filter(|a| a.local && !a.out && !a.dynamic)
                        .cloned()
                        .collect();
                    if VIEWS && !whole.is_empty() && self.rng.chance(0.4) {
                        out.push(self.mut_each(s, &whole));
                    } else if !locals.is_empty() {
                        let a = &locals[self.rng.below(locals.len())];
                        let ix = self.pick_ix(s, a, true);
                        let (e, _) = fit(self.expr(s, 2), 1.0);
                        if !a.dynamic && a.len > 1 && self.moves.chance(0.3) {
                            // besides the write below, one whose value moves
                            // its own index (a stream of its own: the rest
                            // stays as it was)
                            out.push(S::SetArrMoved(
                                a.name.clone(),
                                a.len,
                                self.moves.below(a.len),
                                ["=", "*=", "+="][self.moves.below(3)],
                                e.clone(),
                            ));
                        }
                        if self.rng.chance(0.5) {
                            out.push(S::SetArr(a.name.clone(), ix, "=", e));
                        } else if self.firsts.chance(0.25) {
                            // (a stream of its own: the rest stays as it was)
                            let op = ["*=", "+=", "-="][self.firsts.below(3)];
                            out.push(S::SetArrFirst(a.name.clone(), ix, op, e));
                        } else {
                            let e = E::Bin('*', b(e), b(E::Lit(0.25)));
                            out.push(S::SetArr(a.name.clone(), ix, "+=", e));
                        }
                    }
                }
                // leave the iteration or the loop, under a condition that
                // may read recorded values
                5 if s.labels.len() > 1 && self.rng.chance(0.3) => {
                    let c = self.cond(s, 2);
                    let (label, may_continue) = s.labels[self.rng.below(s.labels.len())].clone();
                    let brk = !may_continue || self.rng.chance(0.5);
                    out.push(S::ExitTo(c, brk, label));
                }
                5 if s.exits.is_some() && self.rng.chance(0.4) => {
                    let c = self.cond(s, 2);
                    let brk = s.exits == Some(false) || self.rng.chance(0.5);
                    out.push(S::Exit(c, brk));
                }
                5 => {
                    let array = self.ret == Some(Ret::Arr) && !ARRAY_RETURNS;
                    if !self.window && !s.in_value && !array && self.rng.chance(0.4) {
                        let c = self.cond(s, 2);
                        // (a helper's `return` is a `break` with a value)
                        let no_flow = std::mem::replace(&mut self.no_flow, self.ret.is_some());
                        let e = match self.ret {
                            None | Some(Ret::Scalar) => self.expr(s, 2).0,
                            Some(Ret::Unit) => E::Pack(false, Vec::new()),
                            Some(r) => {
                                let n = if r == Ret::Arr { 3 } else { 2 };
                                let es = (0..n).map(|_| fit(self.expr(s, 2), 1.0).0).collect();
                                E::Pack(r == Ret::Arr, es)
                            }
                        };
                        self.no_flow = no_flow;
                        out.push(S::Return(c, e));
                    } else if let Some(u) = self.update(s, 2) {
                        out.push(u);
                    }
                }
                6 | 7 => out.push(self.for_loop(s, depth)),
                8 => {
                    let i = self.name("i");
                    let n = 1 + self.rng.below(3);
                    // the condition is evaluated at every turn
                    let c = if self.rng.chance(0.5) {
                        Some(self.cond(s, 1))
                    } else {
                        None
                    };
                    let mut inner = s.clone();
                    inner.idx.push((i.clone(), n));
                    inner.in_loop += 1;
                    inner.exits = Some(false);
                    inner.labels.push((format!("l{i}"), false));
                    let before = inner.clone();
                    let mut body = {
                        let n = 1 + self.rng.below(3);
                        self.block(&mut inner, depth + 1, n)
                    };
                    if self.rng.chance(0.3) {
                        self.early_exit(&before, &mut body, false);
                    }
                    s.muts = inner.muts.clone();
                    let form = self.rng.below(3) as u8;
                    out.push(S::While(i, n, c, body, form));
                }
                11 if WHOLE_ARRAYS => out.push(self.let_if(s, top)),
                11 => {}
                12 => {
                    if let Some(l) = self.loop_value(s, depth) {
                        out.push(l);
                    }
                }
                9 => {
                    let c = self.cond(s, 2);
                    let mut a = s.clone();
                    let th = {
                        let n = 1 + self.rng.below(2);
                        self.block(&mut a, depth + 1, n)
                    };
                    let mut bb = s.clone();
                    let el = {
                        let n = self.rng.below(2);
                        self.block(&mut bb, depth + 1, n)
                    };
                    out.push(S::If(c, th, el));
                }
                // (a helper has no `k` to match on)
                _ if self.plain => {}
                _ => {
                    let arms = (0..2 + self.rng.below(2))
                        .map(|_| {
                            let mut a = s.clone();
                            let n = 1 + self.rng.below(2);
                            self.block(&mut a, depth + 1, n)
                        })
                        .collect();
                    out.push(S::Match(arms));
                }
            }
        }
        out
    }

    /// `for v in h.iter_mut() { *v op e; }` over one of `locals`: `e` may
    /// read `*v`, not `h` (borrowed by the loop).
    fn mut_each(&mut self, s: &Scope, locals: &[Arr]) -> S {
        let h = locals[self.rng.below(locals.len())].clone();
        let mut inner = s.clone();
        inner.arrays.retain(|a| a.name != h.name);
        inner.in_loop += 1;
        let v = self.name("e");
        inner.derefs.push(v.clone());
        let j = self.rng.chance(0.4).then(|| self.name("j"));
        if let Some(j) = &j {
            inner.idx.push((j.clone(), h.len));
        }
        let (e, _) = fit(self.expr(&inner, 2), 1.0);
        let each = self.rng.chance(0.6);
        // now and then a copy walked with it by a zip of mutable
        // iterators (from a stream of its own)
        let partner = (!each && self.keeps.chance(0.8)).then(|| self.keeps.chance(0.5));
        if self.rng.chance(0.5) {
            S::MutEach(v, h.name, "=", e, j, each, partner)
        } else {
            let e = E::Bin('*', b(e), b(E::Lit(0.25)));
            S::MutEach(v, h.name, "+=", e, j, each, partner)
        }
    }

    /// `let mut c = vec![k; 3];` of a constant, read in a loop that then
    /// makes it anew from a recorded array (`c = w.to_vec();`, `c =
    /// w.clone();`, `c = w[lo..lo + 3].to_vec();`), swaps it with a
    /// recorded `Vec`, or (`let mut c: &[f64] = &d;`) borrows a recorded
    /// array (`c = w;`, `c = &r;`), and reads it again, and read after the
    /// loop: constants in the first iteration, recorded values after it.
    fn carried_vec(&mut self, s: &mut Scope) -> Vec<S> {
        let srcs: Vec<Arr> = s
            .arrays
            .iter()
            .filter(|a| !a.out && !a.dynamic && a.len >= 3)
            .cloned()
            .collect();
        if srcs.is_empty() || s.muts.is_empty() {
            return Vec::new();
        }
        let w = srcs[self.rng.below(srcs.len())].clone();
        let (c, i) = (self.name("h"), self.name("i"));
        let lo = self.rng.below(w.len - 2);
        let whole = match (lo, w.len) {
            // a `Vec` of any length (the reads stay below 3)
            _ if w.src == (Src::Vec, Src::Vec) && self.rng.chance(0.5) => {
                2 + self.rng.below(2) as u8
            }
            (0, 3) => 1,
            _ => 0,
        };
        // or swapped with a recorded `Vec` (by a tuple, or `mem::swap`), or
        // made a copy of it by `clone_from`
        let swap = self.rng.chance(0.5).then(|| {
            let r = self.name("h");
            let e = with_knob(fit(self.expr(s, 1), 1.0).0, &self.knobs);
            (r, e, self.rng.below(4) as u8)
        });
        // or a borrowed slice, bound to constants and rebound to `w` where
        // `w` is a reference (nothing writes it), else to a recorded `Vec`
        // made for it and written by nothing
        let refs = |x: Src| matches!(x, Src::Ref | Src::SliceRef);
        let borrow = (swap.is_none() && whole < 2 && self.rng.chance(0.6)).then(|| {
            // (of `c`'s length: `c` may be iterated after the loop)
            if refs(w.src.0) && refs(w.src.1) && !w.part && w.len == 3 && self.rng.chance(0.5) {
                (w.name.clone(), w.src, None)
            } else {
                let r = self.name("h");
                let e = with_knob(fit(self.expr(s, 1), 1.0).0, &self.knobs);
                let made = self.partly_pushed(&r, e, false);
                (r, (Src::Vec, Src::Vec), Some(made))
            }
        });
        let start = E::Lit(self.rng.lit(-1.0, 1.0));
        let n = 1 + self.rng.below(3);
        // (drawn before `read` borrows the generator)
        let made_c = self.partly_pushed(&c, start.clone(), false);
        let made_r = swap
            .as_ref()
            .map(|(r, e, _)| self.partly_pushed(r, e.clone(), false));
        let mut read = |c: &str| {
            let m = s.muts[self.rng.below(s.muts.len())].clone();
            let at = Ix::Const(self.rng.below(3));
            let e = E::Bin(
                '*',
                b(E::M1("tanh", b(E::Index(c.to_string(), at)))),
                b(E::Lit(0.1)),
            );
            S::Assign(m, "+=", e)
        };
        let change = match &swap {
            // or made a copy of it: `c.clone_from(&r);`
            Some((r, _, 3)) => S::Recopy(c.clone(), r.clone(), 0, 3, None, 3),
            Some((r, _, form)) => S::SwapVecs(c.clone(), r.clone(), *form),
            None if borrow.is_some() => {
                let (r, src, _) = borrow.as_ref().unwrap();
                S::Rebind(c.clone(), r.clone(), *src)
            }
            None => S::Recopy(c.clone(), w.name, lo, lo + 3, None, whole),
        };
        let body = vec![read(&c), change, read(&c)];
        let mut after = vec![read(&c)];
        if let Some((_, _, made)) = borrow {
            let d = self.name("h");
            s.arrays
                .push(Arr::new(c.clone(), 3, false, true, Src::SliceRef));
            // `d` may be read later (not written: `c` may borrow it)
            s.arrays.push(Arr::new(d.clone(), 3, false, true, Src::Vec));
            let mut out = vec![self.vec_of_three(&d, start, false)];
            out.extend(made);
            out.push(S::LetBorrow(c, d));
            out.push(S::For(For::Range(i, n), body));
            out.extend(after);
            return out;
        }
        let mut out = vec![made_c];
        if let (Some((r, _, _)), Some(made_r)) = (swap, made_r) {
            out.push(made_r);
            after.push(read(&r));
            s.arrays.push(Arr::new(r.clone(), 3, false, true, Src::Vec));
            s.vecs.push(r);
        }
        s.arrays.push(Arr::new(c.clone(), 3, false, true, Src::Vec));
        s.vecs.push(c);
        out.push(S::For(For::Range(i, n), body));
        out.extend(after);
        out
    }

    /// A knob's array (or a view or chunk of one: a reference nothing
    /// writes) that `keep` accepts, if there is one and a scalar to update.
    fn knob_array(&mut self, s: &Scope, keep: impl Fn(&Arr) -> bool) -> Option<Arr> {
        let refs = |x: Src| matches!(x, Src::Ref | Src::SliceRef);
        let cands: Vec<Arr> = s
            .arrays
            .iter()
            .filter(|a| !a.out && !a.local && refs(a.src.0) && refs(a.src.1) && keep(a))
            .cloned()
            .collect();
        if cands.is_empty() || s.muts.is_empty() {
            return None;
        }
        Some(cands[self.rng.below(cands.len())].clone())
    }

    /// A counter moved on through a mutable borrow between two reads
    /// written alike, `w[*r]` (see [`S::Cursor`]): the reads are not one.
    fn cursor(&mut self, s: &mut Scope) -> Vec<S> {
        let Some(w) = self.knob_array(s, |a| a.len >= 2) else {
            return Vec::new();
        };
        let (k, r) = (self.name("kc"), self.name("kr"));
        let m = s.muts[self.rng.below(s.muts.len())].clone();
        let (a, c) = (self.rng.lit(0.5, 1.5), self.rng.lit(-1.5, -0.5));
        vec![S::Cursor(k, r, w.name, m, a, c)]
    }

    /// `let r = &w[k];` of a knob's element (nothing writes a knob, so
    /// the borrow may last to the block's end), read at once and later as
    /// any element reached through `.iter()`.
    fn elem_ref(&mut self, s: &mut Scope) -> Vec<S> {
        let mut out = self.elem_ref_of(s);
        // (after the statement it would have been, not in its place: the
        // draws of the other streams, and the rest of the program, stay)
        if self.sorts.chance(0.4) {
            out.extend(self.sorted_reads(s).unwrap_or_default());
        }
        out
    }

    /// [`Gen::elem_ref`]'s statement, without the sorted reads.
    fn elem_ref_of(&mut self, s: &mut Scope) -> Vec<S> {
        let Some(w) = self.knob_array(s, |a| a.len >= 1) else {
            return Vec::new();
        };
        if w.len >= 2 && self.rng.chance(0.3) {
            return self.cursor(s);
        }
        let r = self.name("r");
        let k = self.rng.below(w.len);
        let m = s.muts[self.rng.below(s.muts.len())].clone();
        let read = E::Bin(
            '*',
            b(E::M1("tanh", b(E::Deref(r.clone(), self.rng.chance(0.5))))),
            b(E::Lit(0.1)),
        );
        s.derefs.push(r.clone());
        vec![S::RefElem(r, w.name, k), S::Assign(m, "+=", read)]
    }

    /// A knob's elements read through their positions sorted by detached
    /// copies (`S::Sorted`), chosen from a stream of its own (no draw from
    /// the others, no fresh name).
    fn sorted_reads(&mut self, s: &Scope) -> Option<Vec<S>> {
        let refs = |x: Src| matches!(x, Src::Ref | Src::SliceRef);
        let cands: Vec<&Arr> = s
            .arrays
            .iter()
            .filter(|a| !a.out && !a.local && !a.dynamic && a.len >= 2)
            .filter(|a| refs(a.src.0) && refs(a.src.1))
            .collect();
        if cands.is_empty() || s.muts.is_empty() {
            return None;
        }
        let w = cands[self.sorts.below(cands.len())];
        let m = s.muts[self.sorts.below(s.muts.len())].clone();
        let c = (self.sorts.uniform(-1.0, 1.0) * 100.0).round() / 100.0;
        Some(vec![S::Sorted(w.name.clone(), w.len, m, c)])
    }

    /// `if let Some(r) = w.get(k) { … } else { … }` of a knob's element, at
    /// an index inside or one past the end.
    fn if_get(&mut self, s: &mut Scope) -> Vec<S> {
        let Some(w) = self.knob_array(s, |a| !a.dynamic) else {
            return Vec::new();
        };
        let r = self.name("r");
        let mut k = self.rng.below(w.len + 1);
        let form = if self.rng.chance(0.35) {
            3
        } else if self.rng.chance(0.3) {
            // a part of two, past the end when `k` is the last
            k = self.rng.below(w.len);
            4
        } else if self.rng.chance(0.25) {
            // `Some(&r) = w.last()` (5), `Some(r) = w.first()` (6)
            5 + self.rng.below(2) as u8
        } else {
            self.rng.below(3) as u8
        };
        let m = s.muts[self.rng.below(s.muts.len())].clone();
        let read = match form {
            0 | 6 => E::Deref(r.clone(), self.rng.chance(0.5)),
            4 => E::Index(r.clone(), Ix::Const(self.rng.below(2))),
            _ => E::Var(r.clone()),
        };
        let then = E::Bin('*', b(E::M1("tanh", b(read))), b(E::Lit(0.1)));
        let other = E::Lit(self.rng.lit(-0.1, 0.1));
        vec![S::IfGet(r, w.name, k, form, m, then, other)]
    }

    /// `let [a, _, c] = h;` (`*h` through a reference) of a fixed-length
    /// array in scope, its elements named as scalars and one read at once.
    fn unpack(&mut self, s: &mut Scope) -> Option<Vec<S>> {
        let whole = |x: Src| matches!(x, Src::Own | Src::Ref);
        let cands: Vec<Arr> = s
            .arrays
            .iter()
            .filter(|a| !a.out && !a.dynamic && a.len <= 6 && whole(a.src.0) && whole(a.src.1))
            .cloned()
            .collect();
        if cands.is_empty() {
            return None;
        }
        let h = cands[self.rng.below(cands.len())].clone();
        let mut names: Vec<Option<String>> = (0..h.len)
            .map(|_| self.rng.chance(0.7).then(|| self.name("u")))
            .collect();
        if names.iter().all(Option::is_none) {
            names[self.rng.below(h.len)] = Some(self.name("u"));
        }
        let named: Vec<String> = names.iter().flatten().cloned().collect();
        for n in &named {
            s.scalars.push((n.clone(), 4.0));
        }
        let by_ref = (h.src.0 == Src::Ref, h.src.1 == Src::Ref);
        let mut out = vec![S::Unpack(names, h.name, by_ref)];
        if !s.muts.is_empty() {
            let m = s.muts[self.rng.below(s.muts.len())].clone();
            let u = named[self.rng.below(named.len())].clone();
            let e = E::Bin('*', b(E::M1("tanh", b(E::Var(u)))), b(E::Lit(0.1)));
            out.push(S::Assign(m, "+=", e));
        }
        Some(out)
    }

    /// `h = w[lo..hi].to_vec();` of a `Vec` `h` that may be made anew, from
    /// a part of as many elements of an array in scope (`h` itself now and
    /// then; shifted by a loop's index now and then), read at once.
    fn recopy(&mut self, s: &Scope) -> Option<Vec<S>> {
        if s.vecs.is_empty() || s.muts.is_empty() {
            return None;
        }
        let h = s.vecs[self.rng.below(s.vecs.len())].clone();
        let len = s.arrays.iter().rev().find(|a| a.name == h)?.len;
        let cands: Vec<Arr> = s
            .arrays
            .iter()
            .filter(|a| !a.out && !a.dynamic && a.len >= len)
            .cloned()
            .collect();
        if cands.is_empty() {
            return None;
        }
        let w = match cands.iter().find(|a| a.name == h) {
            Some(a) if self.rng.chance(0.3) => a.clone(),
            _ => cands[self.rng.below(cands.len())].clone(),
        };
        let shifts: Vec<(String, usize)> = s
            .idx
            .iter()
            .filter(|(_, n)| *n >= 1 && n - 1 + len <= w.len)
            .cloned()
            .collect();
        let shift = (!shifts.is_empty() && self.rng.chance(0.5))
            .then(|| shifts[self.rng.below(shifts.len())].clone());
        let room = w.len - shift.as_ref().map_or(0, |(_, n)| n - 1);
        let lo = self.rng.below(room - len + 1);
        let by = shift.map(|(i, _)| i);
        // read before and after: the value replaced and the new one
        let mut read = |h: &str| {
            let m = s.muts[self.rng.below(s.muts.len())].clone();
            let at = Ix::Const(self.rng.below(len));
            let e = E::Bin(
                '*',
                b(E::M1("tanh", b(E::Index(h.to_string(), at)))),
                b(E::Lit(0.1)),
            );
            S::Assign(m, "+=", e)
        };
        let before = read(&h);
        let after = read(&h);
        let whole = match by.is_none() && lo == 0 && len == w.len && self.rng.chance(0.6) {
            false => 0,
            // (`h.clone_from(&h)` borrows `h` twice)
            true if w.src == (Src::Vec, Src::Vec) && self.rng.chance(0.5) => {
                2 + u8::from(w.name != h && self.rng.chance(0.5))
            }
            true => 1,
        };
        Some(vec![
            before,
            S::Recopy(h, w.name, lo, lo + len, by, whole),
            after,
        ])
    }

    /// `let v = &w[lo..hi];` of an array in scope (at least 2 long): `v`
    /// joins the scope, and `w` is read, not written, until the block ends.
    /// A view shifted by a `for` loop's index `i` may be followed by `let
    /// i = i + 1;`: the view keeps the part it was made of.
    fn view(&mut self, s: &mut Scope) -> Vec<S> {
        match self.rng.below(8) {
            0 => {
                if let Some(out) = self.unpack(s) {
                    return out;
                }
            }
            1 | 2 => {
                if let Some(out) = self.recopy(s) {
                    return out;
                }
            }
            _ => {}
        }
        let cands: Vec<Arr> = s
            .arrays
            .iter()
            .filter(|a| !a.out && !a.dynamic && a.len >= 2)
            .cloned()
            .collect();
        if cands.is_empty() {
            return Vec::new();
        }
        // often a view itself (a view of a view, a view's split)
        let views: Vec<&Arr> = cands
            .iter()
            .filter(|a| a.name.starts_with('v') && a.src.0 == Src::SliceRef)
            .collect();
        let w = match views.len() {
            0 => cands[self.rng.below(cands.len())].clone(),
            n if self.rng.chance(0.5) => views[self.rng.below(n)].clone(),
            _ => cands[self.rng.below(cands.len())].clone(),
        };
        // now and then shifted by a loop's index `i < n` (`&w[i + lo..i +
        // hi]`), its part then inside for every `i`
        let shifts: Vec<(String, usize)> = s
            .idx
            .iter()
            .filter(|(_, n)| *n >= 1 && *n <= w.len)
            .cloned()
            .collect();
        let shift = (!shifts.is_empty() && self.rng.chance(0.5))
            .then(|| shifts[self.rng.below(shifts.len())].clone());
        let room = w.len - shift.as_ref().map_or(0, |(_, n)| n - 1);
        let len = 1 + self.rng.below(room);
        let mut lo = self.rng.below(room - len + 1);
        let by = shift.map(|(i, _)| i);
        let v = self.name("v");
        // a half of `split_at` (not shifted: a half's other end is fixed)
        let form = match self.rng.below(8) {
            0 | 1 => View::Copy,
            2 if by.is_none() && len < w.len => {
                lo = 0;
                View::Head
            }
            3 if by.is_none() && len < w.len => {
                lo = w.len - len;
                View::Tail
            }
            _ => View::Ref,
        };
        let copy = form == View::Copy;
        if copy {
            // may be made anew later, `v = u[..].to_vec();`
            s.vecs.push(v.clone());
        } else {
            // borrowed: `w` read, not written, while `v` may be in use
            for a in s.arrays.iter_mut().filter(|a| a.name == w.name) {
                a.local = false;
            }
            s.vecs.retain(|h| *h != w.name);
        }
        let src = if copy { Src::Vec } else { Src::SliceRef };
        let mut a = Arr::new(v.clone(), len, false, true, src);
        a.part = !copy;
        s.arrays.push(a);
        let mut out = vec![S::View(v.clone(), w.name, lo, lo + len, by.clone(), form)];
        let shift = by.filter(|i| s.fors.contains(i) && !s.muts.is_empty() && self.rng.chance(0.5));
        if let Some(i) = shift {
            // `i` one more from here on (its bound too), read at once
            for (_, n) in s.idx.iter_mut().filter(|(j, _)| *j == i) {
                *n += 1;
            }
            out.push(S::ShiftIdx(i.clone(), 1));
            let m = s.muts[self.rng.below(s.muts.len())].clone();
            let e = E::Bin('*', b(E::IdxF(i)), b(E::Lit(0.01)));
            out.push(S::Assign(m, "+=", e));
        }
        // read at once (after the shift, where there is one)
        if !s.muts.is_empty() && self.rng.chance(0.7) {
            let m = s.muts[self.rng.below(s.muts.len())].clone();
            let at = Ix::Const(self.rng.below(len));
            let e = E::Bin(
                '*',
                b(E::M1("tanh", b(E::Index(v.clone(), at)))),
                b(E::Lit(0.1)),
            );
            out.push(S::Assign(m, "+=", e));
        }
        // a copy made anew now and then, `v = w[..].to_vec();`
        if copy && self.rng.chance(0.4) {
            let mut only = s.clone();
            only.vecs = vec![v];
            out.extend(self.recopy(&only).into_iter().flatten());
        }
        out
    }

    fn for_loop(&mut self, s: &mut Scope, depth: usize) -> S {
        let mut inner = s.clone();
        inner.in_loop += 1;
        inner.exits = Some(true);
        let iterable: Vec<Arr> = s.arrays.iter().filter(|a| a.iterable).cloned().collect();
        let chunkable: Vec<Arr> = s
            .arrays
            .iter()
            .filter(|a| !a.out && !a.dynamic && a.len >= 2)
            .cloned()
            .collect();
        let kind = match self.rng.below(if VIEWS { 5 } else { 4 }) {
            4 if !chunkable.is_empty() => {
                let w = chunkable[self.rng.below(chunkable.len())].clone();
                let (c, mut form) = (self.name("c"), self.rng.below(3) as u8);
                let k = 1 + self.rng.below(w.len);
                if form == 2 && !w.len.is_multiple_of(k) && k > 4 {
                    form = 0;
                }
                // the shortest chunk's length, and how many there are; a
                // last chunk shorter than the others makes the chunk's
                // length vary (at most 4: a "dynamic" slice's bound)
                let (len, count, varies) = match form {
                    0 => (k, w.len / k, false),
                    1 => (k, w.len + 1 - k, false),
                    _ if w.len.is_multiple_of(k) => (k, w.len / k, false),
                    _ => (w.len % k, w.len.div_ceil(k), true),
                };
                let j = self.rng.chance(0.4).then(|| self.name("j"));
                if let Some(j) = &j {
                    inner.idx.push((j.clone(), count));
                }
                // the array is borrowed by the loop: read, not written
                for a in inner.arrays.iter_mut().filter(|a| a.name == w.name) {
                    a.local = false;
                }
                let mut chunk = Arr::new(c.clone(), len, false, true, Src::SliceRef);
                chunk.dynamic = varies;
                inner.arrays.push(chunk);
                For::Chunks(c, w.name, form, k, j)
            }
            1 if !iterable.is_empty() => {
                let a = self.name("a");
                let arr = &iterable[self.rng.below(iterable.len())];
                inner.derefs.push(a.clone());
                // `.for_each(|a| { … })`: its body leaves nothing early
                let each = VIEWS && self.rng.chance(0.4);
                if each {
                    inner.exits = None;
                    inner.labels.clear();
                    inner.in_value = true;
                }
                For::Iter(a, arr.name.clone(), each)
            }
            2 if !iterable.is_empty() => {
                let (j, a) = (self.name("j"), self.name("a"));
                let arr = &iterable[self.rng.below(iterable.len())];
                inner.derefs.push(a.clone());
                if arr.dynamic {
                    // a helper's slice is at most 4 long
                    inner.idx.push((j.clone(), 4));
                    inner.lens.push((j.clone(), arr.name.clone()));
                } else {
                    inner.idx.push((j.clone(), arr.len));
                }
                For::Enum(j, a, arr.name.clone())
            }
            3 if !iterable.is_empty() => {
                let (a, c) = (self.name("a"), self.name("a"));
                let x = &iterable[self.rng.below(iterable.len())];
                let y = &iterable[self.rng.below(iterable.len())];
                inner.derefs.push(a.clone());
                inner.derefs.push(c.clone());
                For::Zip(a, c, x.name.clone(), y.name.clone())
            }
            _ => {
                let dynamic: Vec<Arr> = s
                    .arrays
                    .iter()
                    .filter(|a| a.dynamic && LEN_LOOPS)
                    .cloned()
                    .collect();
                let i = self.name("i");
                if !dynamic.is_empty() && self.rng.chance(0.5) {
                    // a helper's slices are at most 4 long
                    let arr = dynamic[self.rng.below(dynamic.len())].name.clone();
                    inner.idx.push((i.clone(), 4));
                    inner.lens.push((i.clone(), arr.clone()));
                    For::Len(i, arr)
                } else {
                    let n = 1 + self.rng.below(4);
                    inner.idx.push((i.clone(), n));
                    inner.fors.push(i.clone());
                    For::Range(i, n)
                }
            }
        };
        // the arrays the loop borrows are not made anew in its body
        let borrowed: Vec<String> = match &kind {
            For::Iter(_, a, _) | For::Enum(_, _, a) | For::Chunks(_, a, ..) => vec![a.clone()],
            For::Zip(_, _, a, c) => vec![a.clone(), c.clone()],
            _ => Vec::new(),
        };
        inner.vecs.retain(|h| !borrowed.contains(h));
        let each = matches!(kind, For::Iter(_, _, true));
        // the exit's condition reads only what is bound before the body
        if !each {
            inner.labels.push((label_of(&kind), true));
        }
        let before = inner.clone();
        let mut body = {
            let n = 1 + self.rng.below(3);
            self.block(&mut inner, depth + 1, n)
        };
        if !each && self.rng.chance(0.3) {
            self.early_exit(&before, &mut body, true);
        }
        S::For(kind, body)
    }

    /// The first knob array in scope of at least `len` elements.
    fn first_knob(&self, s: &Scope, len: usize) -> Option<Arr> {
        s.arrays
            .iter()
            .find(|a| a.len >= len && self.knobs.iter().any(|(k, _)| *k == a.name))
            .cloned()
    }

    /// What a loop over a knob array that sums into a new `t` starts from:
    /// the array, `t`, the index `i`, the body's scope and the read `w[i]`.
    fn knob_loop(&mut self, s: &Scope) -> Option<(Arr, String, String, Scope, E)> {
        let w = self.first_knob(s, 0)?;
        let (t, i) = (self.name("t"), self.name("i"));
        let mut inner = s.clone();
        inner.in_loop += 1;
        inner.idx.push((i.clone(), w.len));
        let read = E::Index(w.name.clone(), Ix::Var(i.clone(), false));
        Some((w, t, i, inner, read))
    }

    /// A loop over a range that stops early, read by the output: `t +=
    /// f(w[i]); if c { break; } (t += g;)`, the break's condition flipping
    /// with the index or reading recorded values. Its reverse must walk the
    /// iterations that ran, not the range.
    fn stopping_loop(&mut self, s: &Scope) -> Vec<S> {
        let Some((w, t, i, inner, read)) = self.knob_loop(s) else {
            return Vec::new();
        };
        let f = ["sin", "tanh", "atan"][self.rng.below(3)];
        let first = E::Bin('*', b(E::M1(f, b(read))), b(E::Lit(self.rng.lit(0.3, 1.2))));
        let c = if self.rng.chance(0.5) {
            Cond {
                a: E::IdxF(i.clone()),
                gt: true,
                b: E::Lit(self.rng.lit(0.2, 1.8)),
                test: None,
            }
        } else {
            Cond {
                a: E::Var(t.clone()),
                gt: self.rng.chance(0.5),
                b: E::Lit(self.rng.lit(-0.5, 0.5)),
                test: None,
            }
        };
        let mut body = vec![S::Assign(t.clone(), "+=", first), S::Exit(c, true)];
        if self.rng.chance(0.5) {
            let (e, _) = fit(self.expr(&inner, 1), 1.0);
            body.push(S::Assign(
                t.clone(),
                "+=",
                E::Bin('*', b(e), b(E::Lit(0.5))),
            ));
        }
        vec![
            S::Let(t, with_knob(E::Lit(0.0), &self.knobs)),
            S::For(For::Span(i, 0, w.len), body),
        ]
    }

    /// A loop over a range that only sums, read by the output, through the
    /// shapes the fused-loop verdict follows (`plan/reads.rs`): `if c {
    /// continue; }` before the sum, `+=` and `-=` in the arms of an `if`,
    /// two sums in one iteration; now and then a term that reads the sum
    /// made so far, which must keep the loop from being fused.
    fn arms_sum_loop(&mut self, s: &Scope) -> Vec<S> {
        let Some((w, t, i, _, read)) = self.knob_loop(s) else {
            return Vec::new();
        };
        let term = |g: &mut Self| {
            let f = ["sin", "tanh", "atan", "cos"][g.rng.below(4)];
            E::Bin(
                '*',
                b(E::M1(f, b(read.clone()))),
                b(E::Lit(g.rng.lit(0.3, 1.2))),
            )
        };
        let cond = |g: &mut Self| g.flipping(&i, &read);
        let mut body = Vec::new();
        if self.rng.chance(0.5) {
            body.push(S::Exit(cond(self), false));
        }
        let (one, other) = (term(self), term(self));
        match self.rng.below(3) {
            0 => body.push(S::If(
                cond(self),
                vec![S::Assign(t.clone(), "+=", one)],
                vec![S::Assign(t.clone(), "-=", other)],
            )),
            1 => {
                body.push(S::Assign(t.clone(), "+=", one));
                body.push(S::If(
                    cond(self),
                    vec![S::Assign(t.clone(), "+=", other)],
                    Vec::new(),
                ));
            }
            _ => {
                body.push(S::Assign(t.clone(), "+=", one));
                body.push(S::Assign(t.clone(), "-=", other));
            }
        }
        if self.rng.chance(0.2) {
            let so_far = E::Bin('*', b(E::Var(t.clone())), b(E::Lit(0.1)));
            body.push(S::Assign(t.clone(), "+=", E::M1("tanh", b(so_far))));
        }
        if self.rng.chance(0.3) {
            body.insert(0, S::Exit(cond(self), false));
        }
        vec![
            S::Let(t, with_knob(E::Lit(0.0), &self.knobs)),
            S::For(For::Span(i, 0, w.len), body),
        ]
    }

    /// A condition that flips with the loop's index `i` (`(i as f64) >
    /// c`) or reads the recorded `e`, half the time each.
    fn flipping(&mut self, i: &str, e: &E) -> Cond {
        if self.rng.chance(0.5) {
            Cond {
                a: E::IdxF(i.to_string()),
                gt: self.rng.chance(0.5),
                b: E::Lit(self.rng.lit(0.2, 1.8)),
                test: None,
            }
        } else {
            Cond {
                a: e.clone(),
                gt: self.rng.chance(0.5),
                b: E::Lit(self.rng.lit(-0.5, 0.5)),
                test: None,
            }
        }
    }

    /// A loop over a range that sums terms of neighbouring elements of a
    /// knob array, as chained objectives are written: `t += (w[i + 1] -
    /// w[i] * w[i]).powi(2) * c + f(w[i])`, or `w[i - 1]` and `w[i]` over
    /// `1..n` (through a named index). The fused loop carries the upper
    /// element's slope to the next iteration in a register; the edges it
    /// must not carry through: a read in an `if` arm, a `continue` before a
    /// read, a third offset, offsets two apart. A `break` ends the
    /// iterations early, with a slope waiting.
    fn neighbour_loop(&mut self, s: &Scope) -> Vec<S> {
        let Some(w) = s
            .arrays
            .iter()
            .filter(|a| a.len >= 2 && self.knobs.iter().any(|(k, _)| *k == a.name))
            .max_by_key(|a| a.len)
            .cloned()
        else {
            return Vec::new();
        };
        let (t, i) = (self.name("t"), self.name("i"));
        // now and then the window is over an array the body makes itself,
        // `let nb = [w[0] * c, …];`: its adjoint is a new buffer in every
        // iteration, so no slope may wait in a register for the next one
        let mut made = Vec::new();
        let (w, n) = if self.rng.chance(0.4) {
            let m = self.name("nb");
            let el = (0..3)
                .map(|k| {
                    E::Bin(
                        '*',
                        b(E::Index(w.name.clone(), Ix::Const(k % w.len))),
                        b(E::Lit(self.rng.lit(0.5, 1.5))),
                    )
                })
                .collect();
            made.push(S::LetArr(m.clone(), 3, Some(el)));
            (Arr::new(m, 3, false, true, Src::Own), 3)
        } else {
            let n = w.len;
            (w, n)
        };
        let shape = match self.rng.below(10) {
            _ if self.rng.chance(0.3) => 10,
            8 | 9 if n < 3 => 0,
            k => k,
        };
        // the offsets read, and the range that keeps them in bounds
        let (offsets, lo, hi): (&[i64], usize, usize) = match shape {
            8 => (&[0, 1, 2], 0, n - 2),
            9 => (&[0, 2], 0, n - 2),
            10 => (&[0, 1], 0, n - 1),
            _ if self.rng.chance(0.4) => (&[-1, 0], 1, n),
            _ => (&[0, 1], 0, n - 1),
        };
        let read = |k: i64| match k {
            0 => E::Index(w.name.clone(), Ix::Var(i.clone(), false)),
            _ => E::Index(w.name.clone(), Ix::Off(i.clone(), k)),
        };
        let (a, b2) = (read(offsets[0]), read(offsets[offsets.len() - 1]));
        let f = ["sin", "tanh", "atan", "cos"][self.rng.below(4)];
        let gap = E::Bin(
            '-',
            b(b2.clone()),
            b(E::Bin('*', b(a.clone()), b(a.clone()))),
        );
        let chained = E::Bin(
            '*',
            b(E::Bin('*', b(gap.clone()), b(gap))),
            b(E::Lit(self.rng.lit(0.3, 1.2))),
        );
        let lone =
            |g: &mut Self, e: E| E::Bin('*', b(E::M1(f, b(e))), b(E::Lit(g.rng.lit(0.3, 1.2))));
        let cond = |g: &mut Self, e: &E| g.flipping(&i, e);
        let mut body = made;
        match shape {
            // the element read, the index shifted by a `let`, and the same
            // tokens read again: `let sa = w[i]; let i = i + 1;` then
            // `w[i]`, the next element
            10 => {
                let first = self.name("sa");
                body.push(S::Let(first.clone(), a.clone()));
                body.push(S::ShiftIdx(i.clone(), 1));
                let again = E::Bin('*', b(a.clone()), b(E::Var(first)));
                body.push(S::Assign(t.clone(), "+=", lone(self, again)));
            }
            // the upper read only in an arm
            5 => {
                body.push(S::Assign(t.clone(), "+=", lone(self, a.clone())));
                let c = cond(self, &a);
                let one = lone(self, b2.clone());
                body.push(S::If(c, vec![S::Assign(t.clone(), "+=", one)], Vec::new()));
            }
            // a `continue` between the reads
            6 => {
                body.push(S::Assign(t.clone(), "+=", lone(self, a.clone())));
                let c = cond(self, &a);
                body.push(S::Exit(c, false));
                body.push(S::Assign(t.clone(), "-=", lone(self, b2.clone())));
            }
            // a `continue` first
            7 => {
                let c = cond(self, &a);
                body.push(S::Exit(c, false));
                body.push(S::Assign(t.clone(), "+=", chained));
            }
            8 => {
                body.push(S::Assign(t.clone(), "+=", chained));
                let mid = read(1);
                body.push(S::Assign(t.clone(), "+=", lone(self, mid)));
            }
            _ => {
                body.push(S::Assign(t.clone(), "+=", chained));
                if self.rng.chance(0.5) {
                    body.push(S::Assign(t.clone(), "+=", lone(self, a.clone())));
                }
                if self.rng.chance(0.3) {
                    body.push(S::Assign(t.clone(), "-=", lone(self, b2.clone())));
                }
                // a `break`: a slope waits when the loop ends
                if shape == 4 {
                    let c = cond(self, &b2);
                    body.push(S::Exit(c, true));
                }
            }
        }
        // walked backward now and then: the iteration after `i` is `i - 1`
        let range = if self.rng.chance(0.4) {
            For::Back(i, lo, hi)
        } else {
            For::Span(i, lo, hi)
        };
        vec![
            S::Let(t, with_knob(E::Lit(0.0), &self.knobs)),
            S::For(range, body),
        ]
    }

    /// An exit before the body's last statement, often one that flips
    /// with the loop's index (`if (i as f64) > 0.5 { break; }`): the
    /// iterations after it, or the rest of this one, do not run.
    fn early_exit(&mut self, s: &Scope, body: &mut Vec<S>, may_continue: bool) {
        let c = match s.idx.last() {
            Some((i, _)) if self.rng.chance(0.6) => Cond {
                a: E::IdxF(i.clone()),
                gt: self.rng.chance(0.5),
                b: E::Lit(self.rng.lit(0.2, 1.8)),
                test: None,
            },
            _ => self.cond(s, 1),
        };
        let brk = !may_continue || self.rng.chance(0.5);
        let at = self.rng.below(body.len().max(1));
        body.insert(at, S::Exit(c, brk));
    }

    /// A whole-array operation on a local array, or a swap of two scalars.
    fn whole(&mut self, s: &mut Scope) -> Option<S> {
        let locals: Vec<Arr> = s.arrays.iter().filter(|a| a.local).cloned().collect();
        if !WHOLE_ARRAYS || locals.is_empty() || (s.muts.len() >= 2 && self.rng.chance(0.2)) {
            if s.muts.len() < 2 {
                return None;
            }
            let a = self.rng.below(s.muts.len());
            let c = (a + 1 + self.rng.below(s.muts.len() - 1)) % s.muts.len();
            let (a, c) = (s.muts[a].clone(), s.muts[c].clone());
            // each may now hold the other's value
            let bound = s
                .scalars
                .iter()
                .filter(|(n, _)| *n == a || *n == c)
                .map(|(_, b)| *b)
                .fold(0.0, f64::max);
            for (n, b) in &mut s.scalars {
                if *n == a || *n == c {
                    *b = bound;
                }
            }
            return Some(S::SwapScalars(a, c));
        }
        let h = locals[self.rng.below(locals.len())].name.clone();
        let other = locals
            .iter()
            .map(|a| a.name.clone())
            .filter(|n| *n != h)
            .collect::<Vec<_>>();
        let op = match self.rng.below(5) {
            0 => Whole::Fill(fit(self.expr(s, 2), 1.0).0),
            1 => {
                let i = self.rng.below(3);
                Whole::Swap(i, (i + 1 + self.rng.below(2)) % 3)
            }
            2 if !other.is_empty() => Whole::CopyFrom(other[self.rng.below(other.len())].clone()),
            3 if !other.is_empty() => Whole::MemSwap(other[self.rng.below(other.len())].clone()),
            _ => Whole::Assign((0..3).map(|_| fit(self.expr(s, 2), 1.0).0).collect()),
        };
        Some(S::Whole(h, op))
    }

    /// `let h = if c { [..] } else { [..] };` or a tuple of two scalars.
    fn let_if(&mut self, s: &mut Scope, top: bool) -> S {
        let c = self.cond(s, 2);
        // an array only at the top, where the output reads it (a write to
        // one in a nested block might go unread, and rustc would warn)
        let array = top && self.rng.chance(0.5);
        let n = if array { 3 } else { 2 };
        let arm = |g: &mut Self| -> Vec<E> {
            (0..n)
                .map(|_| {
                    if g.rng.chance(0.2) {
                        E::Lit(g.rng.lit(-1.0, 1.0))
                    } else {
                        fit(g.expr(s, 2), 1.0).0
                    }
                })
                .collect()
        };
        let (th, el) = (arm(self), arm(self));
        if array {
            let h = self.name("h");
            // written later, so not iterated (a loop over it could not
            // write it)
            s.arrays.push(Arr::new(h.clone(), 3, true, false, Src::Own));
            S::LetIf(vec![h], true, c, th, el)
        } else {
            let (p, q) = (self.name("t"), self.name("t"));
            s.scalars.push((p.clone(), 1.0));
            s.scalars.push((q.clone(), 1.0));
            S::LetIf(vec![p, q], false, c, th, el)
        }
    }

    /// `let t = loop { …; if i + 1 >= n || c { break e; } i += 1; };`: a
    /// `break` with a value; the body leaves it no other way.
    fn loop_value(&mut self, s: &mut Scope, depth: usize) -> Option<S> {
        let (t, i) = (self.name("t"), self.name("i"));
        let n = 1 + self.rng.below(3);
        let mut inner = s.clone();
        inner.idx.push((i.clone(), n));
        inner.in_loop += 1;
        inner.exits = None;
        inner.labels.clear();
        inner.in_value = true;
        let body = {
            let k = 1 + self.rng.below(2);
            self.block(&mut inner, depth + 1, k)
        };
        s.muts = inner.muts.clone();
        let c = self.cond(&inner, 1);
        let no_flow = std::mem::replace(&mut self.no_flow, true);
        let (e, bound) = fit(self.expr(&inner, 2), 1.0);
        self.no_flow = no_flow;
        s.scalars.push((t.clone(), bound));
        // (the pair from a stream of its own: the rest stays)
        let pair = self.keeps.chance(0.4);
        Some(S::LoopValue(t, i, n, c, body, e, pair))
    }

    fn top(&mut self, knobs: &[(String, Shape)]) -> Vec<S> {
        let mut s = Scope::default();
        for (n, sh) in knobs {
            match sh {
                Shape::Scalar => s.scalars.push((n.clone(), 1.5)),
                Shape::Mat(r, c) => s.mats.push((n.clone(), *r, *c)),
                Shape::Arr(l) | Shape::Slice(l) => {
                    // the window form's knobs are values (`[f64; N]`,
                    // `Vec<f64>`); the dual numbers' are references
                    let (held, own) = match sh {
                        Shape::Arr(_) => (Src::Ref, Src::Own),
                        _ => (Src::SliceRef, Src::Vec),
                    };
                    let mut a = Arr::new(n.clone(), *l, false, true, held);
                    if self.window {
                        a.src.0 = own;
                    }
                    s.arrays.push(a)
                }
            }
        }
        let mut out = Vec::new();
        // an accumulator, a local array, maybe a vec and a tuple
        let acc = self.name("t");
        let (e, _) = fit(self.expr(&s, 2), 2.0);
        out.push(S::Let(acc.clone(), with_knob(e, knobs)));
        s.scalars.push((acc.clone(), 4.0));
        s.muts.push(acc);
        if self.rng.chance(0.7) {
            let h = self.name("h");
            // elements may well all have slope 0 (`x.trunc()`, constants
            // chosen by a recorded branch)
            let init = if self.rng.chance(0.6) {
                None
            } else {
                let el = (0..3).map(|_| fit(self.expr(&s, 2), 2.0).0).collect();
                Some(el)
            };
            out.push(S::LetArr(h.clone(), 3, init));
            s.arrays.push(Arr::new(h.clone(), 3, true, false, Src::Own));
            if self.rng.chance(0.35) {
                out.push(self.made(&mut s, h));
            }
        }
        if self.rng.chance(0.3) {
            let v = self.name("vv");
            let n = 1 + self.rng.below(3);
            self.no_flow = true;
            let el: Vec<E> = (0..n).map(|_| fit(self.expr(&s, 2), 2.0).0).collect();
            self.no_flow = false;
            out.push(S::LetVec(v.clone(), el));
            s.arrays.push(Arr::new(v, n, false, true, Src::Vec));
        }
        if self.rng.chance(0.3) {
            let (p, q) = (self.name("t"), self.name("t"));
            let e1 = fit(self.expr(&s, 2), 4.0).0;
            let e2 = fit(self.expr(&s, 2), 4.0).0;
            // (the branch from a stream of its own: the rest stays)
            let branch = self.keeps.chance(0.4);
            out.push(S::LetTuple(p.clone(), q.clone(), e1, e2, branch));
            s.scalars.push((p, 4.0));
            s.scalars.push((q, 4.0));
        }
        // calls to the block helpers
        for k in 0..self.ucount {
            if self.rng.chance(0.8) {
                if let Some(call) = self.ucall_stmt(&mut s, k, true) {
                    out.extend(call);
                }
            }
        }
        // often the program is one such loop and nothing that could
        // stop its shortcuts (no `return`, nothing after it): each
        // shortcut's edge, where the shortcut would be taken
        if !self.window && self.rng.chance(0.3) {
            match self.rng.below(26) {
                0..=2 => out.extend(self.stopping_loop(&s)),
                3..=5 => out.extend(self.arms_sum_loop(&s)),
                23..=25 if self.rng.chance(0.3) => out.extend(self.matrix_chain()),
                23..=25 => {
                    let scan = self.scan_loop(&s);
                    if scan.is_empty() {
                        out.extend(self.stopping_loop(&s));
                    }
                    out.extend(scan);
                }
                20..=22 => {
                    let selecting = self.selecting_loop(&s);
                    if selecting.is_empty() {
                        out.extend(self.stopping_loop(&s));
                    }
                    out.extend(selecting);
                }
                6..=13 => {
                    let chained = self.neighbour_loop(&s);
                    if chained.is_empty() {
                        out.extend(self.stopping_loop(&s));
                    }
                    out.extend(chained);
                }
                _ => {
                    // (a third of them the edge of a read before the
                    // renewal, passed into it, which only a fused loop
                    // shows: drawn from the second stream)
                    let read_first = self.rare.chance(0.35);
                    // (and some of the others the edge of a renewal of
                    // `1..3` added into after it, `h[0]` carried on, read
                    // by the sum through `sin`: only a fused loop shows it)
                    let adds_after = !read_first && self.rare.chance(0.3);
                    out.extend(self.passing_loop(&mut s, false, read_first, adds_after))
                }
            }
            return out;
        }
        // a loop passing values between its iterations through an array,
        // before the rest (which may read and write the array again) or
        // after it
        let passing = self.rng.chance(0.35);
        let first = self.rng.chance(0.5);
        if passing && first {
            out.extend(self.passing_loop(&mut s, true, false, false));
        }
        let n = 3 + self.rng.below(6);
        out.extend(self.block(&mut s, 0, n));
        if passing && !first {
            out.extend(self.passing_loop(&mut s, false, false, false));
        }
        // a loop that writes one element of a local array in every
        // iteration, read after it: only the last write's value survives,
        // so its reverse must not walk the iterations first to last
        if self.rng.chance(0.2) {
            let local = s.arrays.iter().find(|a| a.local && a.len == 3).cloned();
            let read = s
                .arrays
                .iter()
                .find(|a| self.knobs.iter().any(|(k, _)| *k == a.name))
                .cloned();
            if let (Some(h), Some(w)) = (local, read) {
                let j = self.name("j");
                let at = self.rng.below(3);
                let value = E::Bin(
                    '*',
                    b(E::Index(w.name.clone(), Ix::Var(j.clone(), false))),
                    b(E::Lit(self.rng.lit(-1.0, 1.0))),
                );
                out.push(S::For(
                    For::Span(j.clone(), 0, w.len),
                    vec![S::SetArr(h.name.clone(), Ix::Const(at), "=", value)],
                ));
                // read where the program's value reads it
                if at != 0 {
                    let t = self.name("t");
                    out.push(S::Let(t, E::Index(h.name.clone(), Ix::Const(at))));
                }
            }
        }
        // an in-place smoothing pass over a local array, `h[j] = h[j] * a +
        // h[j - 1] * c`: each iteration reads what the one before wrote,
        // so its reverse must walk them last to first, though it keeps
        // nothing
        if self.rng.chance(0.2) {
            if let Some(h) = s.arrays.iter().find(|a| a.local && a.len == 3).cloned() {
                let j = self.name("j");
                let (a, c) = (self.rng.lit(0.2, 0.9), self.rng.lit(-0.9, 0.9));
                let next = E::Bin(
                    '+',
                    b(E::Bin(
                        '*',
                        b(E::Index(h.name.clone(), Ix::Var(j.clone(), false))),
                        b(E::Lit(a)),
                    )),
                    b(E::Bin(
                        '*',
                        b(E::Index(h.name.clone(), Ix::Off(j.clone(), -1))),
                        b(E::Lit(c)),
                    )),
                );
                // (named now and then: written out, it is no loop)
                let range = match self.rng.chance(0.5) {
                    true => For::Named(j.clone(), 1, 3),
                    false => For::Span(j.clone(), 1, 3),
                };
                out.push(S::For(
                    range,
                    vec![S::SetArr(h.name.clone(), Ix::Var(j, false), "=", next)],
                ));
                let t = self.name("t");
                let last = if self.rng.chance(0.5) {
                    Ix::Borrowed(2)
                } else {
                    Ix::Const(2)
                };
                out.push(S::Let(t, E::Index(h.name.clone(), last)));
            }
        }
        // a loop whose carried value decays, `z = z * c + w[j]`: its
        // adjoint changes from one iteration to the next, so its reverse
        // must walk them last to first, although it keeps nothing
        if self.rng.chance(0.2) {
            let read = s
                .arrays
                .iter()
                .find(|a| self.knobs.iter().any(|(k, _)| *k == a.name))
                .cloned();
            if let Some(w) = read {
                let (z, j) = (self.name("t"), self.name("j"));
                let c = self.rng.lit(0.3, 0.9);
                let next = E::Bin(
                    '+',
                    b(E::Bin('*', b(E::Var(z.clone())), b(E::Lit(c)))),
                    b(E::Index(w.name.clone(), Ix::Var(j.clone(), false))),
                );
                out.push(S::Let(z.clone(), with_knob(E::Lit(0.0), &self.knobs)));
                out.push(S::For(
                    For::Span(j, 0, w.len),
                    vec![S::Assign(z, "=", next)],
                ));
            }
        }
        // a loop that only sums, over the knobs and the values made so far,
        // its sum used linearly (by the output): one the function form fuses
        if self.rng.chance(0.3) {
            out.extend(self.summing_loop(&s, knobs));
        }
        // loops of one form each, each with its chance: a chained
        // objective's loop over neighbouring elements, a loop keeping the
        // largest or smallest of its values, a recurrent scan over a local
        // state, a triangular loop whose inner loop only reads, a stencil
        // stepped over a field (on a line or a grid), a scratch array made
        // in each iteration, offsets around an index as a loop over
        // negative literals, a dense layer read through rows' starts
        type Form = fn(&mut Gen, &Scope) -> Vec<S>;
        let forms: [(f64, Form); 8] = [
            (0.2, Self::neighbour_loop),
            (0.3, Self::selecting_loop),
            (0.25, Self::scan_loop),
            (0.2, Self::triangle_loop),
            (0.2, Self::stencil_loop),
            (0.2, Self::scratch_loop),
            (0.15, Self::offset_loop),
            (0.3, Self::nest_loop),
        ];
        for (chance, form) in forms {
            if self.rng.chance(chance) {
                out.extend(form(self, &s));
            }
        }
        // a chain of products of small local matrices
        if self.rng.chance(0.2) {
            out.extend(self.matrix_chain());
        }
        // two rows of a matrix knob read in one loop over its columns
        // (`z += m[i][j] * m[i + 1][j]`), or a row and the diagonal
        // (`m[j][j]`): the reverse slices each row's buffer apart, and
        // must not slice a row indexed by the column's own variable
        if self.rng.chance(0.25) {
            if let Some((m, r, c)) = knobs.iter().find_map(|(k, sh)| match sh {
                Shape::Mat(r, c) => Some((k.clone(), *r, *c)),
                _ => None,
            }) {
                out.extend(self.row_loop(&m, r, c));
            }
        }
        // every other element of a knob array, `z += w[2 * j].sin()`, next
        // to `w[j]` or not: the reverse must not slice a stride as a run
        if self.rng.chance(0.2) {
            if let Some((w, n)) = knobs.iter().find_map(|(k, sh)| match sh {
                Shape::Arr(n) if *n >= 3 => Some((k.clone(), *n)),
                _ => None,
            }) {
                out.extend(self.strided_loop(&w, n));
            }
        }
        out
    }

    /// `for _ in 0..2 { let mut z = c; for j in 0..(n + 1) / 2 { z +=
    /// w[2 * j].sin() (* w[j]); } t += z.tanh(); }`
    fn strided_loop(&mut self, w: &str, n: usize) -> Vec<S> {
        let (t, z, i, j) = (
            self.name("t"),
            self.name("t"),
            self.name("_i"),
            self.name("j"),
        );
        let mut e = E::M1("sin", b(E::Index(w.to_string(), Ix::Twice(j.clone()))));
        if self.rng.chance(0.5) {
            e = E::Bin(
                '*',
                b(e),
                b(E::Index(w.to_string(), Ix::Var(j.clone(), false))),
            );
        }
        let inner = S::For(
            For::Span(j.clone(), 0, n.div_ceil(2)),
            vec![S::Assign(z.clone(), "+=", e)],
        );
        vec![
            S::Let(t.clone(), E::Lit(0.0)),
            S::For(
                For::Span(i, 0, 2),
                vec![
                    S::Let(z.clone(), E::Lit(self.rng.lit(-0.5, 0.5))),
                    inner,
                    S::Assign(t, "+=", E::M1("tanh", b(E::Var(z)))),
                ],
            ),
        ]
    }

    /// `for i in 0..r - 1 { let mut z = 0.0; for j in 0..c { z += m[a][j]
    /// * m[b][j]; } t += z.tanh(); }`, its rows `a` and `b` two of `i`,
    /// `i + 1` and, for `b`, the column's own `j` (`c ≤ r`).
    fn row_loop(&mut self, m: &str, r: usize, c: usize) -> Vec<S> {
        let (t, z, i, j) = (
            self.name("t"),
            self.name("t"),
            self.name("i"),
            self.name("j"),
        );
        let row = |k: usize| match k {
            0 => Ix::Var(i.clone(), false),
            1 => Ix::Off(i.clone(), 1),
            _ => Ix::Var(j.clone(), false),
        };
        let a = self.rng.below(2);
        let b2 = if c <= r && self.rng.chance(0.3) {
            2
        } else {
            self.rng.below(2)
        };
        let col = || Ix::Var(j.clone(), false);
        let prod = E::Bin(
            '*',
            b(E::Index2(m.to_string(), row(a), r, col(), c)),
            b(E::M1(
                "sin",
                b(E::Index2(m.to_string(), row(b2), r, col(), c)),
            )),
        );
        let inner = S::For(
            For::Span(j.clone(), 0, c),
            vec![S::Assign(z.clone(), "+=", prod)],
        );
        vec![
            S::Let(t.clone(), E::Lit(0.0)),
            S::For(
                For::Span(i.clone(), 0, r - 1),
                vec![
                    S::Let(z.clone(), E::Lit(self.rng.lit(-0.5, 0.5))),
                    inner,
                    S::Assign(t, "+=", E::M1("tanh", b(E::Var(z)))),
                ],
            ),
        ]
    }

    /// `let mut h = vec![e; 3];`, or now and then a `Vec` of three pushed
    /// from empty, its element `(k + c) · e`, `k` the loop's index
    /// (`S::Pushed`).
    fn vec_of_three(&mut self, h: &str, e: E, later: bool) -> S {
        if !self.pushes.chance(0.75) {
            return self.partly_pushed(h, e, later);
        }
        // (no draw from the other streams, no fresh name: the rest of the
        // program stays as it was)
        let k = format!("{h}k");
        // (the nest, the shadowed index and three pushes an iteration twice
        // as often: the edges of the count and of indexing by the loop)
        let form = [0, 1, 2, 3, 4, 5, 2, 4, 5, 5, 2][self.pushes.below(11)];
        let c = E::Lit((self.pushes.uniform(0.5, 1.5) * 100.0).round() / 100.0);
        // (a knob in most elements; a `Vec` of constants pushed, lent
        // where a recorded array is later, in the others)
        let e = if self.pushes.chance(0.7) {
            with_knob(e, &self.knobs)
        } else {
            e
        };
        let ek = E::Bin('*', b(E::Bin('+', b(E::IdxF(k.clone())), b(c))), b(e));
        S::Pushed(h.to_string(), k, ek, form, later)
    }

    /// `let mut h = vec![e; 3];`, or half the time a `Vec` of three pushed
    /// by a loop whose iterations may skip their push (`S::Pushed`, forms
    /// 7 to 11), its element `(k + c) · e`: drawn from a stream of its own,
    /// so the rest of the program stays as it was.
    fn partly_pushed(&mut self, h: &str, e: E, later: bool) -> S {
        if !self.keeps.chance(0.5) {
            return S::LetFill(h.to_string(), Some(e), true, later);
        }
        let k = format!("{h}k");
        let form = 7 + self.keeps.below(5) as u8;
        let c = E::Lit((self.keeps.uniform(0.5, 1.5) * 100.0).round() / 100.0);
        let e = if self.keeps.chance(0.7) {
            with_knob(e, &self.knobs)
        } else {
            e
        };
        let ek = E::Bin('*', b(E::Bin('+', b(E::IdxF(k.clone())), b(c))), b(e));
        S::Pushed(h.to_string(), k, ek, form, later)
    }

    /// A top-level loop that sums while its iterations pass values to each
    /// other through an array made before it (of length 3): a recurrence
    /// `h[i] = f(h[i - 1])`, a read of `h[i + 1]` before the next iteration
    /// overwrites it, `h[0] += …` in every iteration, or one element per
    /// iteration; the sum reads the array at the same element, another one,
    /// or a temporary, and now and then the body reads the running sum.
    /// With `later`, code after it may read and write the array again, and
    /// the program's value reads its first element. With `read_first`, the
    /// loop runs over a named bound and its body reads the array's first
    /// element before an inner loop renews the array from that value.
    fn passing_loop(
        &mut self,
        s: &mut Scope,
        later: bool,
        read_first: bool,
        adds_after: bool,
    ) -> Vec<S> {
        let h = self.name("h");
        let sum = self.name("t");
        let i = self.name("i");
        let mut out = Vec::new();
        // the array: from a value with a slope (`vec![w; 3]` or `[w; 3]`),
        // or zeros and a first element
        let is_vec = self.rng.chance(0.5);
        self.no_flow = is_vec;
        let e = with_knob(fit(self.expr(s, 1), 1.0).0, &self.knobs);
        self.no_flow = false;
        if self.rng.chance(0.5) {
            out.push(S::LetFill(h.clone(), Some(e), is_vec, later));
        } else {
            out.push(S::LetFill(h.clone(), None, is_vec, later));
            out.push(S::SetArr(h.clone(), Ix::Const(0), "=", e));
        }
        let init = if self.rng.chance(0.6) {
            E::Lit(0.0)
        } else {
            fit(self.expr(s, 1), 1.0).0
        };
        out.push(S::Let(sum.clone(), init));
        let mut inner = s.clone();
        inner.in_loop += 1;
        inner.muts.clear();
        let kind = match self.rng.below(7) {
            _ if read_first || adds_after => 4,
            k => k,
        };
        // `vec![e; 3]` now and then filled by `push` instead, but not
        // before a renewal (kinds 4 to 6): a loop writing the array before
        // it would keep the renewal's shortcuts from being taken, and the
        // edges of their checks from being tried (`dep_zero`, `dep_before`)
        if kind < 4 {
            match out.first().cloned() {
                Some(S::LetFill(_, Some(e), true, later)) => {
                    out[0] = self.vec_of_three(&h, e, later);
                }
                // zeros pushed, then a recorded first element written
                Some(S::LetFill(_, None, true, later)) if self.pushes.chance(0.5) => {
                    out[0] = S::Pushed(h.clone(), "_".to_string(), E::Lit(0.0), 6, later);
                }
                _ => {}
            }
        }
        let (mut lo, mut hi) = match kind {
            0 => (1, 3),
            1 => (0, 2),
            2 => (0, 1 + self.rng.below(3)),
            3 => (self.rng.below(2), 3),
            // at least two iterations, for one to reach the next
            _ => (0, 2 + self.rng.below(2)),
        };
        inner.idx.push((i.clone(), hi));
        let at = |k: i64| E::Index(h.clone(), Ix::Off(i.clone(), k));
        let here = E::Index(h.clone(), Ix::Var(i.clone(), false));
        let mut body = Vec::new();
        let (mut e, _) = fit(self.expr(&inner, 1), 1.0);
        // (not with `adds_after`: a sum read inside keeps the loop from
        // being fused)
        if self.rng.chance(0.2) && !adds_after {
            // the running sum, read inside the loop
            e = E::Bin('+', b(e), b(E::M1("tanh", b(E::Var(sum.clone())))));
        }
        let mut reads = vec![here.clone(), E::Index(h.clone(), Ix::Const(0))];
        // (over a named bound where the loop may be fused: a literal short
        // range is written out, and is then no loop to fuse)
        let mut named = read_first;
        match kind {
            0 => {
                // a flow dependence: `h[i] = f(h[i - 1] * e) + c`, now and
                // then over `0..2` with the element read first and the index
                // shadowed after, `let t = h[i]; let i = i + 1;`: `h[i]`
                // below is the next element, though it reads the same
                let mut prev = at(-1);
                if self.rng.chance(0.4) {
                    (lo, hi) = (0, 2);
                    let t = self.name("t");
                    body.push(S::Let(
                        t.clone(),
                        E::Index(h.clone(), Ix::Var(i.clone(), false)),
                    ));
                    body.push(S::ShiftIdx(i.clone(), 1));
                    prev = E::Var(t);
                }
                let f = ["sin", "tanh", "atan"][self.rng.below(3)];
                let prev = E::Bin('*', b(prev), b(e));
                let c = E::Lit(self.rng.lit(-0.5, 0.5));
                body.push(S::SetArr(
                    h.clone(),
                    Ix::Var(i.clone(), false),
                    "=",
                    E::Bin('+', b(E::M1(f, b(prev))), b(c)),
                ));
                reads.push(at(-1));
            }
            1 => {
                // an anti dependence: `t = h[i + 1]; h[i] = t * e`
                let t = self.name("t");
                body.push(S::Let(t.clone(), at(1)));
                body.push(S::SetArr(
                    h.clone(),
                    Ix::Var(i.clone(), false),
                    "=",
                    E::Bin('*', b(E::Var(t.clone())), b(e)),
                ));
                reads.push(E::Var(t));
                reads.push(at(1));
            }
            2 => {
                // one element added into in every iteration
                body.push(S::SetArr(
                    h.clone(),
                    Ix::Const(0),
                    "+=",
                    E::Bin('*', b(e), b(E::Lit(0.5))),
                ));
            }
            3 => {
                // one element per iteration
                body.push(S::SetArr(h.clone(), Ix::Var(i.clone(), false), "=", e));
                if lo > 0 {
                    reads.push(at(-1));
                }
            }
            _ => {
                // a scratch array renewed by an inner loop at the top of
                // each iteration, `for j in 0..3 { h[j] = …; }`, then read
                // and added into over `j + 1..3`; or one of the edges that
                // let a value through to the next iteration: a read before
                // the renewal passed into it, a renewal of `1..3` with
                // `h[0]` read and written after it (or added into, with the
                // others, by a loop after it), a renewal by `+=`, a
                // renewal inside an `if`, a renewal inside an inner loop
                // with a read before that loop
                let j = self.name("j");
                // (the edge of `1..3`, added into after: more often where
                // the loop may be fused, which it is only when nothing
                // after it reads its sum but the program's value)
                let edge = match self.rng.below(8) {
                    _ if read_first => 1,
                    _ if adds_after => 7,
                    _ if !later && self.rng.chance(0.2) => 7,
                    e => e,
                };
                let mut scope = inner.clone();
                scope.idx.push((j.clone(), 3));
                let mut ej = with_knob(fit(self.expr(&scope, 1), 1.0).0, &self.knobs);
                let op = if edge == 3 { "+=" } else { "=" };
                let from = if edge == 2 || edge == 7 { 1 } else { 0 };
                // (`tf`: the read of the edge a fused loop shows, counted
                // in `tests/differential.rs`)
                let t = self.name(if read_first { "tf" } else { "t" });
                if edge == 1 || edge == 5 {
                    // read before the renewal, and passed into it: the
                    // previous iteration's value reaches this one
                    body.push(S::Let(t.clone(), E::Index(h.clone(), Ix::Const(0))));
                    reads.push(E::Var(t.clone()));
                    ej = E::Bin('+', b(ej), b(E::M1("sin", b(E::Var(t.clone())))));
                }
                // (a renewal the adjoint writes out is no loop: named, so
                // that the dependence analysis sees it, at each edge that
                // lets a value through and in half of the others)
                let through = !matches!(edge, 0 | 6);
                let range = match through || self.rng.chance(0.5) {
                    true => For::Named(j.clone(), from, 3),
                    false => For::Span(j.clone(), from, 3),
                };
                let renew = S::For(
                    range,
                    vec![S::SetArr(h.clone(), Ix::Var(j.clone(), false), op, ej)],
                );
                if edge == 4 {
                    let c = self.cond(&inner, 1);
                    body.push(S::If(c, vec![renew], Vec::new()));
                } else if edge == 5 {
                    // the renewal inside an inner loop, which renews the
                    // array for its own iterations, while the outer
                    // iteration reads it before that loop
                    let c = self.name("_c");
                    body.push(S::For(For::Span(c, 0, 2), vec![renew]));
                } else {
                    body.push(renew);
                }
                if edge == 2 {
                    // `h[0]`, outside the renewal, read and written after
                    // it: the previous iteration's value reaches this one
                    let old = E::M1("sin", b(E::Index(h.clone(), Ix::Const(0))));
                    body.push(S::SetArr(
                        h.clone(),
                        Ix::Const(0),
                        "=",
                        E::Bin('+', b(old), b(e)),
                    ));
                    reads.push(E::Index(h.clone(), Ix::Const(0)));
                } else if edge == 7 {
                    // added into over the whole array by a loop after the
                    // renewal of `1..3`: `h[0]`, which the renewal leaves,
                    // takes the sum on to the next iteration (a loop that
                    // would be fused if `h` were renewed whole)
                    named = true;
                    let k = self.name("jz");
                    let term = E::Bin('*', b(e), b(E::Lit(0.5)));
                    body.push(S::For(
                        For::Named(k.clone(), 0, 3),
                        vec![S::SetArr(h.clone(), Ix::Var(k, false), "+=", term)],
                    ));
                    reads.push(E::Index(h.clone(), Ix::Const(0)));
                } else if self.rng.chance(0.5) {
                    // added into over a triangle, as a Cholesky-like
                    // product does
                    let (a, c) = (self.name("j"), self.name("j"));
                    // (`v[c] += v[a]` does not borrow-check for a `Vec`)
                    let by = if is_vec {
                        E::IdxF(a.clone())
                    } else {
                        E::Index(h.clone(), Ix::Var(a.clone(), false))
                    };
                    let term = E::Bin('*', b(by), b(E::Lit(0.5)));
                    body.push(S::For(
                        For::Span(a.clone(), 0, 3),
                        vec![S::For(
                            For::Tail(c.clone(), a),
                            vec![S::SetArr(h.clone(), Ix::Var(c, false), "+=", term)],
                        )],
                    ));
                }
                reads.push(E::Index(h.clone(), Ix::Const(self.rng.below(3))));
            }
        }
        let r = reads[self.rng.below(reads.len())].clone();
        let term = match self.rng.below(3) {
            _ if adds_after => E::M1("sin", b(E::Index(h.clone(), Ix::Const(0)))),
            0 => r,
            1 => E::Bin('*', b(r.clone()), b(r)),
            _ => E::M1("sin", b(r)),
        };
        let op = if self.rng.chance(0.8) { "+=" } else { "-=" };
        body.push(S::Assign(sum.clone(), op, term));
        if is_vec && self.rng.chance(0.25) {
            // the array replaced whole, by one of 3 to 5 elements
            let (e, _) = fit(self.expr(&inner, 1), 1.0);
            body.push(S::Regrow(h.clone(), i.clone(), e));
        }
        let range = match named {
            true => For::Named(i, lo, hi),
            false => For::Span(i, lo, hi),
        };
        out.push(S::For(range, body));
        // the sum shadowed after the loop (only where nothing follows that
        // could assign it)
        if !later && self.rng.chance(0.3) {
            let again = E::Bin('*', b(E::Var(sum.clone())), b(E::Lit(0.5)));
            out.push(S::ShadowLet(sum.clone(), again));
        }
        s.scalars.push((sum.clone(), 4.0));
        s.muts.push(sum);
        // later code may read and write it again (a `Vec` is not passed to
        // the array helper, which takes `[f64; 3]`)
        let src = if is_vec { Src::Vec } else { Src::Own };
        if later && is_vec {
            s.vecs.push(h.clone());
        }
        s.arrays.push(Arr::new(h, 3, later && !is_vec, false, src));
        out
    }

    /// `let mut s = e; for i in 0..n { …; s += e; }`, the body reading no
    /// array made in the function and assigning nothing outside it.
    /// A loop keeping the largest or smallest of its values, `t =
    /// t.max(w[i] - c)` or `t = e.min(t)`, started from a bound every value
    /// beats, an element, or a knob's value none beats; now and then over
    /// the range twice (`w[i % n]`), each element tying with the running
    /// value the second time. Its reverse may be the winner's iteration
    /// alone; a product in the value, or the running value read again in
    /// it, keeps it walking every iteration.
    fn selecting_loop(&mut self, s: &Scope) -> Vec<S> {
        let Some((w, t, i, inner, read)) = self.knob_loop(s) else {
            return Vec::new();
        };
        let twice = self.rng.chance(0.3);
        let (read, end) = match twice {
            true => (
                E::Index(w.name.clone(), Ix::Var(i.clone(), true)),
                2 * w.len,
            ),
            false => (read, w.len),
        };
        // (the running value read in its own value, a third of them: the
        // edge where the winner's iteration alone is not the reverse)
        let value = match self.rng.below(10) {
            0 | 1 => read,
            2 => E::Neg(b(read)),
            3 => E::Bin('+', b(read), b(E::Lit(self.rng.lit(-1.0, 1.0)))),
            4 => {
                // a value of the scope, maybe recorded (reading `w[i]` too
                // where `i` stays in its range)
                let (c, _) = fit(self.expr(if twice { s } else { &inner }, 1), 2.0);
                E::Bin('-', b(read), b(c))
            }
            5 => E::Bin('*', b(read.clone()), b(read)),
            6 => E::M1("sin", b(read)),
            // `t.max(w[i] + t)` takes the element's value whenever it is
            // positive, so that iterations before the winner's receive the
            // adjoint the running value passes on
            _ => {
                let op = if self.rng.chance(0.7) { '+' } else { '-' };
                E::Bin(op, b(read), b(E::Var(t.clone())))
            }
        };
        let max = self.rng.chance(0.5);
        let rule = if max { "max" } else { "min" };
        let next = match self.rng.chance(0.5) {
            true => E::M2(rule, b(E::Var(t.clone())), b(value)),
            false => E::M2(rule, b(value), b(E::Var(t.clone()))),
        };
        let sign = if max { 1.0 } else { -1.0 };
        // a start every value beats: a bound, `-inf` (`inf` for `min`), or
        // NaN, which `max` and `min` pass over
        let init = match self.rng.below(5) {
            0 => E::Lit(-9.0 * sign),
            1 => E::Lit(f64::NEG_INFINITY * sign),
            2 => E::Lit(f64::NAN),
            3 => E::Index(w.name.clone(), Ix::Const(0)),
            _ => with_knob(E::Lit(9.0 * sign), &self.knobs),
        };
        vec![
            S::Let(t.clone(), init),
            S::For(For::Span(i, 0, end), vec![S::Assign(t, "=", next)]),
        ]
    }

    /// A recurrent scan over a local state `h: [f64; 3]`: `for t in 0..T {
    /// let mut next = [0.0; 3]; for i in 0..3 { let mut z = w[i] * c; for j
    /// in 0..3 { z += w[..] * h[j]; } next[i] = z.tanh(); } h = next; }`.
    /// Nothing in the loop over `i` changes `h`, so the reverse may read a
    /// copy of `h` taken where that loop starts instead of each `h[j]` kept;
    /// now and then the loop over `i` does change it (`h[i] = …` after the
    /// inner loop), or the inner loop reads `h` by another index, and no
    /// copy may be read.
    fn scan_loop(&mut self, s: &Scope) -> Vec<S> {
        let Some(w) = self.first_knob(s, 0) else {
            return Vec::new();
        };
        let (h, next, t, i, j, z, out) = (
            self.name("h"),
            self.name("h"),
            self.name("i"),
            self.name("i"),
            self.name("j"),
            self.name("t"),
            self.name("t"),
        );
        let init = match self.rng.below(3) {
            0 => None,
            _ => Some(
                (0..3)
                    .map(|_| with_knob(E::Lit(self.rng.lit(-0.5, 0.5)), &self.knobs))
                    .collect(),
            ),
        };
        let weight = |g: &mut Self, k: &str| {
            E::Bin(
                '*',
                b(E::Index(w.name.clone(), Ix::Var(k.to_string(), true))),
                b(E::Lit(g.rng.lit(0.3, 0.9))),
            )
        };
        let state = if self.rng.chance(0.8) {
            E::Index(h.clone(), Ix::Var(j.clone(), false))
        } else {
            E::Index(h.clone(), Ix::Const(self.rng.below(3)))
        };
        let term = E::Bin('*', b(weight(self, &j)), b(state));
        let inner = match self.rng.chance(0.7) {
            true => For::Range(j.clone(), 3),
            false => For::Len(j.clone(), h.clone()),
        };
        let mut body = vec![
            S::Let(z.clone(), weight(self, &i)),
            S::For(inner, vec![S::Assign(z.clone(), "+=", term)]),
        ];
        if self.rng.chance(0.25) {
            let damped = E::Bin('*', b(E::Var(z.clone())), b(E::Lit(0.5)));
            body.push(S::SetArr(h.clone(), Ix::Var(i.clone(), false), "=", damped));
        }
        body.push(S::SetArr(
            next.clone(),
            Ix::Var(i.clone(), false),
            "=",
            E::M1("tanh", b(E::Var(z))),
        ));
        let step = vec![
            S::LetArr(next.clone(), 3, None),
            S::For(For::Range(i, 3), body),
            S::Assign(h.clone(), "=", E::Var(next)),
        ];
        vec![
            S::LetArr(h.clone(), 3, init),
            S::For(For::Range(t, 1 + self.rng.below(3)), step),
            S::Let(out, E::Index(h, Ix::Const(self.rng.below(3)))),
        ]
    }

    /// A dense layer over a local array (or a knob array long enough) read
    /// as a matrix of `r` rows of stride `k` through a row's start, as a
    /// small model is written: `for i in 0..R { let mut z = c; for j in
    /// 0..C { z += g[j + i * K] * x; } h[i] = z.tanh(); }`, with `R`, `C`
    /// and `K` literals or named constants (`K >= C`, so rows may leave a
    /// gap) and the start `i * K` or `K * i`. With the loops' bounds named,
    /// one run serves the whole nest (`lower/nests.rs`); written out, or
    /// bounded by literals, each row has its own, or none.
    fn nest_loop(&mut self, s: &Scope) -> Vec<S> {
        let (rows, cols) = (2 + self.rng.below(2), 2 + self.rng.below(2));
        let stride = cols + self.rng.below(2);
        let n = (rows - 1) * stride + cols;
        let mut out = Vec::new();
        let g = match self.first_knob(s, n) {
            Some(w) if self.rng.chance(0.4) => w.name,
            _ => {
                let g = self.name("h");
                let el = (0..n).map(|_| fit(self.expr(s, 2), 2.0).0).collect();
                out.push(S::LetArr(g.clone(), n, Some(el)));
                g
            }
        };
        let (h, i, j, z, t) = (
            self.name("h"),
            self.name("i"),
            self.name("j"),
            self.name("t"),
            self.name("t"),
        );
        let k = match self.rng.chance(0.5) {
            true => format!("K{stride}"),
            false => stride.to_string(),
        };
        let start = match self.rng.chance(0.5) {
            true => format!("{i} * {k}"),
            false => format!("{k} * {i}"),
        };
        let read = E::Index(g.clone(), Ix::Stride(j.clone(), true, start));
        let x = match self.rng.below(3) {
            0 => E::Index(g.clone(), Ix::Var(j.clone(), false)),
            1 => E::Lit(self.rng.lit(-0.9, 0.9)),
            _ => E::M1("sin", b(E::Index(g.clone(), Ix::Var(i.clone(), false)))),
        };
        let c = self.rng.lit(0.1, 0.5);
        let body = vec![
            S::Let(z.clone(), with_knob(E::Lit(c), &self.knobs)),
            S::For(
                For::Span(j, 0, cols),
                vec![S::Assign(z.clone(), "+=", E::Bin('*', b(read), b(x)))],
            ),
            S::SetArr(
                h.clone(),
                Ix::Var(i.clone(), false),
                "=",
                E::M1("tanh", b(E::Var(z))),
            ),
        ];
        out.push(S::LetArr(h.clone(), rows, None));
        out.push(S::For(For::Span(i, 0, rows), body));
        out.push(S::Let(
            t,
            E::Bin(
                '+',
                b(E::Index(h.clone(), Ix::Const(0))),
                b(E::Index(h, Ix::Const(rows - 1))),
            ),
        ));
        out
    }

    /// A triangular loop whose inner loop only reads, over a range not
    /// constant: `for i in 0..n { let mut z = g[i] * c; for j in 0..i { z
    /// += g[j] * g[j + 1]; } t += z.tanh(); }`. `g` is a knob array (2 to 4
    /// long) or a local array of 4 to 7 elements made of the knobs. Such an
    /// inner loop is written twice, with its runs for a range of 4 or more
    /// and without for a shorter one: the knob array reaches only the
    /// short copy, the local array both.
    fn triangle_loop(&mut self, s: &Scope) -> Vec<S> {
        let knob = self.first_knob(s, 0);
        let mut out = Vec::new();
        let (g, n) = match knob {
            Some(w) if self.rng.chance(0.4) => (w.name.clone(), w.len),
            _ => {
                let g = self.name("h");
                let n = 4 + self.rng.below(4);
                let el = (0..n).map(|_| fit(self.expr(s, 2), 2.0).0).collect();
                out.push(S::LetArr(g.clone(), n, Some(el)));
                (g, n)
            }
        };
        let (t, i, j, z) = (
            self.name("t"),
            self.name("i"),
            self.name("j"),
            self.name("t"),
        );
        let at = |k: &str, off: i64| match off {
            0 => E::Index(g.clone(), Ix::Var(k.to_string(), false)),
            _ => E::Index(g.clone(), Ix::Off(k.to_string(), off)),
        };
        let c = self.rng.lit(0.3, 0.9);
        let term = match self.rng.below(3) {
            0 => E::Bin('*', b(at(&j, 0)), b(at(&j, 1))),
            1 => E::Bin(
                '*',
                b(E::M1(
                    ["sin", "tanh", "atan"][self.rng.below(3)],
                    b(at(&j, 1)),
                )),
                b(E::Lit(self.rng.lit(-0.9, 0.9))),
            ),
            _ => {
                let gap = E::Bin('-', b(at(&j, 1)), b(at(&j, 0)));
                E::Bin('*', b(gap.clone()), b(gap))
            }
        };
        let body = vec![
            S::Let(z.clone(), E::Bin('*', b(at(&i, 0)), b(E::Lit(c)))),
            S::For(
                For::Head(j, i.clone()),
                vec![S::Assign(z.clone(), "+=", term)],
            ),
            S::Assign(t.clone(), "+=", E::M1("tanh", b(E::Var(z)))),
        ];
        out.push(S::Let(t, with_knob(E::Lit(0.0), &self.knobs)));
        out.push(S::For(For::Span(i, 0, n), body));
        out
    }

    /// A stencil, as simulations write it: a local field `u` made of the
    /// knobs, stepped `T` times into a second buffer `v` swapped with it,
    /// each interior point from its neighbours; on a line (`v[i] = u[i] + a
    /// * (u[i - 1] - 2.0 * u[i] + u[i + 1])`, or a lopsided pair), or on an
    /// `m × m` grid through a named index (`let p = r * m + c;` then
    /// `u[p - 1]`, `u[p + m]`, … with `m` a literal or a named constant). Now and
    /// then the line reads a knob array instead, once. The reverse of each
    /// row's loop may keep the slopes of the row's neighbours in registers
    /// (`analyze/carry.rs`), walking the row back.
    fn stencil_loop(&mut self, s: &Scope) -> Vec<S> {
        let knob = s
            .arrays
            .iter()
            .filter(|a| a.len >= 3 && self.knobs.iter().any(|(k, _)| *k == a.name))
            .max_by_key(|a| a.len)
            .cloned();
        let (u, v, t) = (self.name("h"), self.name("h"), self.name("t"));
        let a = self.rng.lit(0.05, 0.2);
        let steps = 1 + self.rng.below(3);
        let mut out = Vec::new();
        let field = |g: &mut Self, n: usize| -> Vec<E> {
            (0..n).map(|_| fit(g.expr(s, 2), 2.0).0).collect()
        };
        let lit = |x: f64| b(E::Lit(x));
        // one point's new value from its neighbours at the given indices
        let point = |g: &mut Self, f: &str, at: &dyn Fn(i64) -> Ix, across: Option<(Ix, Ix)>| {
            let read = |k: i64| E::Index(f.to_string(), at(k));
            let mut sum = match g.rng.below(3) {
                // the three-point Laplacian
                0 | 1 => E::Bin(
                    '+',
                    b(E::Bin('+', b(read(-1)), b(read(1)))),
                    b(E::Bin('*', lit(-2.0), b(read(0)))),
                ),
                // a lopsided difference, through a function
                _ => E::Bin(
                    '*',
                    b(E::M1(
                        ["tanh", "sin"][g.rng.below(2)],
                        b(E::Bin('-', b(read(1)), b(read(0)))),
                    )),
                    b(read(0)),
                ),
            };
            if let Some((up, down)) = across {
                let (up, down) = (E::Index(f.to_string(), up), E::Index(f.to_string(), down));
                sum = E::Bin(
                    '+',
                    b(E::Bin('+', b(sum), b(up))),
                    b(E::Bin('-', b(down), b(E::Bin('*', lit(2.0), b(read(0)))))),
                );
            }
            E::Bin('+', b(read(0)), b(E::Bin('*', lit(a), b(sum))))
        };
        let at_var = |i: &str| {
            let i = i.to_string();
            move |k: i64| match k {
                0 => Ix::Var(i.clone(), false),
                k => Ix::Off(i.clone(), k),
            }
        };
        match (self.rng.below(5), knob) {
            // the line reads a knob array, once
            (0, Some(w)) => {
                let n = w.len;
                let i = self.name("i");
                out.push(S::LetArr(v.clone(), n, None));
                let value = point(self, &w.name, &at_var(&i), None);
                out.push(S::For(
                    For::Span(i.clone(), 1, n - 1),
                    vec![S::SetArr(v.clone(), Ix::Var(i, false), "=", value)],
                ));
                out.push(S::Let(t, E::Index(v, Ix::Const(1))));
            }
            // a line, stepped
            (0..=2, _) => {
                let n = 4 + self.rng.below(4);
                let (i, k) = (self.name("i"), self.name("i"));
                let init = field(self, n);
                out.push(S::LetArr(u.clone(), n, Some(init)));
                out.push(S::LetArr(v.clone(), n, None));
                let value = point(self, &u, &at_var(&i), None);
                out.push(S::For(
                    For::Range(k, steps),
                    vec![
                        S::For(
                            For::Span(i.clone(), 1, n - 1),
                            vec![S::SetArr(v.clone(), Ix::Var(i, false), "=", value)],
                        ),
                        S::Whole(u.clone(), Whole::MemSwap(v)),
                    ],
                ));
                out.push(S::Let(t, E::Index(u, Ix::Const(1 + self.rng.below(n - 2)))));
            }
            // a grid through a named index
            _ => {
                let m = 3 + self.rng.below(3);
                let stride = match self.rng.chance(0.5) {
                    true => format!("K{m}"),
                    false => m.to_string(),
                };
                let (r, c, p, k) = (
                    self.name("i"),
                    self.name("i"),
                    self.name("i"),
                    self.name("i"),
                );
                let init = field(self, m * m);
                out.push(S::LetArr(u.clone(), m * m, Some(init)));
                out.push(S::LetArr(v.clone(), m * m, None));
                let across = Some((
                    Ix::Stride(p.clone(), false, stride.clone()),
                    Ix::Stride(p.clone(), true, stride.clone()),
                ));
                let value = point(self, &u, &at_var(&p), across);
                let row = vec![
                    S::LetIdx(p.clone(), r.clone(), stride, c.clone()),
                    S::SetArr(v.clone(), Ix::Var(p, false), "=", value),
                ];
                out.push(S::For(
                    For::Range(k, steps),
                    vec![
                        S::For(
                            For::Span(r, 1, m - 1),
                            vec![S::For(For::Span(c, 1, m - 1), row)],
                        ),
                        S::Whole(u.clone(), Whole::MemSwap(v)),
                    ],
                ));
                out.push(S::Let(t, E::Index(u, Ix::Const(m + 1))));
            }
        }
        out
    }

    /// A scratch array made in each iteration of a loop (`let mut g =
    /// vec![e; 3 + i % 2];`, `vec![e; 3]` or `[e; 3]`, `e` a constant or
    /// recorded), an element read before it is written, written from the
    /// knobs, read again, and one element never written read too, summed
    /// (the loop is fused) or into a sum that decays (walked back): the reverse of each iteration
    /// starts from a zero buffer for `g`, made in the memory the iteration
    /// walked before gave back (`reverse/decls.rs`), which that iteration
    /// may have left holding slopes that reached nothing.
    fn scratch_loop(&mut self, s: &Scope) -> Vec<S> {
        let Some(w) = self.first_knob(s, 0) else {
            return Vec::new();
        };
        let (t, i, g) = (self.name("t"), self.name("i"), self.name("h"));
        let start = match self.rng.chance(0.5) {
            true => E::Lit(self.rng.lit(-1.0, 1.0)),
            false => with_knob(fit(self.expr(s, 1), 1.0).0, &self.knobs),
        };
        let at = |k: usize| E::Index(g.clone(), Ix::Const(k));
        let knob = E::Index(w.name.clone(), Ix::Var(i.clone(), false));
        let (k, other) = (self.rng.below(3), self.rng.below(3));
        let c = self.rng.lit(0.3, 1.2);
        let mut body = vec![
            match self.rng.below(3) {
                // a length read from the index: the buffer is a pool's
                0 | 1 => S::LetScratch(g.clone(), start, i.clone()),
                _ => S::LetFill(g.clone(), Some(start), self.rng.chance(0.5), false),
            },
            S::Assign(t.clone(), "+=", E::Bin('*', b(at(k)), b(knob.clone()))),
            S::SetArr(
                g.clone(),
                Ix::Const(k),
                "=",
                E::Bin('*', b(knob), b(E::Lit(c))),
            ),
        ];
        if self.rng.chance(0.5) {
            // (a `Vec`'s element is not read inside its own `+=`)
            let q = self.name("t");
            body.push(S::Let(q.clone(), E::M1("sin", b(at(k)))));
            body.push(S::SetArr(
                g.clone(),
                Ix::Const((k + 1) % 3),
                "+=",
                E::Var(q),
            ));
        }
        let term = E::Bin(
            '+',
            b(E::Bin('*', b(at(k)), b(at((k + 1) % 3)))),
            b(at(other)),
        );
        // a sum (the loop is fused) or a decaying one (walked back)
        body.push(match self.rng.chance(0.5) {
            true => S::Assign(t.clone(), "+=", term),
            false => {
                let decayed = E::Bin('*', b(E::Var(t.clone())), b(E::Lit(self.rng.lit(0.3, 0.9))));
                S::Assign(t.clone(), "=", E::Bin('+', b(decayed), b(term)))
            }
        });
        vec![
            S::Let(t, with_knob(E::Lit(0.0), &self.knobs)),
            S::For(For::Span(i, 0, w.len), body),
        ]
    }

    /// Offsets around an index as a loop over signed literals: `for j in
    /// 1..n - 1 { for k in -1..=1 { t += w[(j as i64 + k) as usize] *
    /// w[j] * (k as f64 + c); } }` (or `-2..=0`, `-1..2`): a range of
    /// negative literals, its counter cast to an index and to scale.
    fn offset_loop(&mut self, s: &Scope) -> Vec<S> {
        let Some(w) = self.first_knob(s, 3) else {
            return Vec::new();
        };
        let (t, j, k) = (self.name("t"), self.name("i"), self.name("i"));
        let (lo, hi) = match self.rng.below(3) {
            0 => (-2, 0),
            _ => (-1, 1),
        };
        let inclusive = self.rng.chance(0.6);
        let c = self.rng.lit(0.5, 1.5);
        let read = E::Index(w.name.clone(), Ix::Signed(j.clone(), k.clone()));
        let own = E::Index(w.name.clone(), Ix::Var(j.clone(), false));
        let scale = E::Bin('+', b(E::IdxF(k.clone())), b(E::Lit(c)));
        let term = E::Bin('*', b(E::Bin('*', b(read), b(own))), b(scale));
        vec![
            S::Let(t.clone(), with_knob(E::Lit(0.0), &self.knobs)),
            S::For(
                For::Span(j, (-lo) as usize, w.len - hi as usize),
                vec![S::For(
                    For::Signed(k, lo, hi, inclusive),
                    vec![S::Assign(t, "+=", term)],
                )],
            ),
        ]
    }

    /// A chain of products of small local matrices, as forward kinematics
    /// writes it: `let mut p = [[..]; n]; for t in 0..T { let r = [[..],
    /// ..]; let mut q = [[0.0; n]; n]; for a in 0..n { for b in 0..n { for
    /// k in 0..n { q[a][b] += p[a][k] * r[k][b]; } } } p = q; }`. Nothing in
    /// the loop over `a` changes `p` or `r`, so the reverse may read copies
    /// of them taken where it starts instead of each element kept. Now and
    /// then `r` holds constants (at the end of a block, as an inlined
    /// helper's value is), the loops run in another order, an element is
    /// read at a constant index, or the loop over `a` changes `p` (`p[a][b]
    /// *= 0.5` after the sum), where no copy of `p` may be read. The reverse
    /// makes `r` again from its literal rather than keep a copy; now and
    /// then `r` is changed in place between its literal and the loops
    /// (`r[i][j] *= e`, so `let mut r`), where it may not.
    fn matrix_chain(&mut self) -> Vec<S> {
        let n = 2 + self.rng.below(2);
        let (p, r, q, t, out) = (
            self.name("m"),
            self.name("m"),
            self.name("m"),
            self.name("i"),
            self.name("t"),
        );
        let (a, bb, k) = (self.name("i"), self.name("j"), self.name("k"));
        let constants = self.rng.chance(0.3);
        let mut entry = |g: &mut Self, i: usize, j: usize| {
            let lit = E::Lit(g.rng.lit(-0.6, 0.6) + if i == j { 0.8 } else { 0.0 });
            let e = match (constants, g.rng.below(3)) {
                (true, 0) => E::Bin('*', b(lit), b(E::IdxF(t.clone()))),
                (true, _) => lit,
                (false, 0) => lit,
                (false, 1) => E::M1("sin", b(with_knob(lit, &g.knobs))),
                (false, _) => with_knob(lit, &g.knobs),
            };
            // now and then a literal zero or one, as a rotation has: written
            // out, a product with the zero adds no slope (its own stream,
            // so the rest of the program stays as it was)
            match g.keeps.below(4) {
                0 => E::Lit(0.0),
                1 => E::Lit(1.0),
                _ => e,
            }
        };
        let rows = |g: &mut Self, entry: &mut dyn FnMut(&mut Self, usize, usize) -> E| {
            (0..n)
                .map(|i| (0..n).map(|j| entry(g, i, j)).collect())
                .collect::<Vec<Vec<E>>>()
        };
        // (a product of constants from a constant start has no slope)
        let start = match !constants && self.rng.chance(0.5) {
            true => rows(self, &mut |_, i, j| E::Lit(if i == j { 1.0 } else { 0.0 })),
            false => rows(self, &mut |g: &mut Self, _, _| {
                with_knob(E::Lit(g.rng.lit(-0.5, 0.5)), &g.knobs)
            }),
        };
        let mut turn = rows(self, &mut entry);
        let block = self.rng.chance(0.4);
        if block && self.rng.chance(0.5) {
            // the element the block binds a constant, among recorded ones:
            // the reverse reads it back from the array it made
            turn[0][n - 1] = E::Lit(self.rng.lit(-0.6, 0.6));
        }
        let var = |x: &str| Ix::Var(x.to_string(), false);
        let read_p = match self.rng.chance(0.85) {
            true => E::Index2(p.clone(), var(&a), n, var(&k), n),
            false => E::Index2(p.clone(), var(&a), n, Ix::Const(self.rng.below(n)), n),
        };
        let mut product = E::Bin(
            '*',
            b(read_p),
            b(E::Index2(r.clone(), var(&k), n, var(&bb), n)),
        );
        // now and then each column scaled by a row `[e; 3]` of one recorded
        // value, which the reverse makes again from it
        let scale = (n == 3 && self.rng.chance(0.6)).then(|| {
            let v = self.name("h");
            let e = with_knob(E::Lit(self.rng.lit(0.5, 1.5)), &self.knobs);
            (v, E::M1("sin", b(e)))
        });
        if let Some((v, _)) = &scale {
            product = E::Bin('*', b(product), b(E::Index(v.clone(), var(&bb))));
        }
        let sum = S::SetMat(q.clone(), var(&a), var(&bb), n, "+=", product);
        let mut order = [a.clone(), bb.clone(), k.clone()];
        if self.rng.chance(0.3) {
            order.swap(1, 2);
        }
        let [o0, o1, o2] = order;
        // over literal ranges (`0..3`, a nest written out, each read of the
        // literal's array at literal indices) or named ones (kept loops)
        let literal = self.keeps.chance(0.6);
        let range = |o: String| match literal {
            true => For::Span(o, 0, n),
            false => For::Range(o, n),
        };
        let mut middle = vec![S::For(range(o2), vec![sum])];
        if self.rng.chance(0.2) && o1 == bb {
            // the loop over `a` changes `p`: read where it starts, wrong
            middle.push(S::SetMat(
                p.clone(),
                var(&a),
                var(&bb),
                n,
                "*=",
                E::Lit(0.5),
            ));
        }
        let mut step = vec![S::LetMat(r.clone(), n, Some(turn), block)];
        if let Some((v, e)) = scale {
            step.push(S::LetFill(v, Some(e), false, false));
        }
        if self.rng.chance(0.25) {
            // changed in place after its literal: not the literal's array
            let (i, j) = (Ix::Const(self.rng.below(n)), Ix::Const(self.rng.below(n)));
            let by = with_knob(E::Lit(self.rng.lit(0.5, 1.5)), &self.knobs);
            step.push(S::SetMat(r, i, j, n, "*=", by));
        }
        step.extend([
            S::LetMat(q.clone(), n, None, false),
            S::For(range(o0), vec![S::For(range(o1), middle)]),
            S::Assign(p.clone(), "=", E::Var(q)),
        ]);
        let (i, j) = (self.rng.below(n), self.rng.below(n));
        vec![
            S::LetMat(p.clone(), n, Some(start), false),
            // (over a named bound where the nest is over literal ones: a
            // short literal loop around would keep the nest loops)
            S::For(
                match (literal, 1 + self.rng.below(3)) {
                    (true, steps) => For::Named(t, 0, steps),
                    (false, steps) => For::Range(t, steps),
                },
                step,
            ),
            S::Let(out, E::Index2(p, Ix::Const(i), n, Ix::Const(j), n)),
        ]
    }

    fn summing_loop(&mut self, s: &Scope, knobs: &[(String, Shape)]) -> Vec<S> {
        let sum = self.name("t");
        let init = if self.rng.chance(0.5) {
            E::Lit(0.0)
        } else {
            fit(self.expr(s, 1), 2.0).0
        };
        let mut inner = s.clone();
        inner.in_loop += 1;
        inner.muts.clear();
        inner
            .arrays
            .retain(|a| knobs.iter().any(|(k, _)| *k == a.name));
        let i = self.name("i");
        inner.idx.push((i.clone(), 1 + self.rng.below(4)));
        let n = inner.idx.last().map_or(1, |(_, n)| *n);
        let mut body = {
            let k = self.rng.below(3);
            self.block(&mut inner, 1, k)
        };
        let op = if self.rng.chance(0.7) { "+=" } else { "-=" };
        // (over named bounds now and then: a short literal range is
        // written out, and is then no loop to fuse)
        let mut named = false;
        let shape = self.rng.below(10);
        if shape < 3 {
            // the sum goes on in an inner loop that only sums into it too
            // (`for j in 0..m { t += … }`): still a sum of the outer loop,
            // and the inner loop is fused inside it
            let j = self.name("j");
            let m = 1 + self.rng.below(3);
            let mut deeper = inner.clone();
            deeper.in_loop += 1;
            deeper.idx.push((j.clone(), m));
            let (e, _) = fit(self.expr(&deeper, 2), 2.0);
            let mut run = vec![S::Assign(sum.clone(), op, e)];
            if self.rng.chance(0.3) {
                let (c, _) = fit(self.expr(&deeper, 1), 1.0);
                run.push(S::Assign(
                    sum.clone(),
                    "+=",
                    E::Bin('*', b(c), b(E::Lit(0.5))),
                ));
            }
            named = self.rng.chance(0.5);
            let range = match named {
                true => For::Named(j, 0, m),
                false => For::Range(j, m),
            };
            body.push(S::For(range, run));
        } else if shape < 6 {
            // an inner sum of its own (`tz`), read by the outer sum times
            // a factor (`t += f * tz`): fused inside the outer loop where
            // the factor is known before the inner loop (made earlier in
            // the body, or made after it from values known before), not
            // where the factor is not, or where the inner sum is read
            // non-linearly
            let (z, j) = (self.name("tz"), self.name("j"));
            let m = 1 + self.rng.below(3);
            let start = if self.rng.chance(0.5) {
                E::Lit(0.0)
            } else {
                fit(self.expr(&inner, 1), 1.0).0
            };
            let mut deeper = inner.clone();
            deeper.in_loop += 1;
            deeper.idx.push((j.clone(), m));
            let (e, _) = fit(self.expr(&deeper, 2), 2.0);
            let mut run = vec![S::Assign(z.clone(), "+=", e)];
            // now and then a third loop adding into the inner sum too,
            // fused inside the inner loop as that one is inside the outer
            if self.rng.chance(0.3) {
                let k = self.name("k");
                let mut deepest = deeper.clone();
                deepest.in_loop += 1;
                deepest.idx.push((k.clone(), 2));
                let (e, _) = fit(self.expr(&deepest, 1), 1.0);
                run.push(S::For(
                    For::Named(k, 0, 2),
                    vec![S::Assign(z.clone(), "+=", e)],
                ));
            }
            body.push(S::Let(z.clone(), start));
            body.push(S::For(For::Named(j, 0, m), run));
            let read = match self.rng.below(5) {
                0 => E::M1("tanh", b(E::Var(z))),
                1 => E::Bin('*', b(E::Lit(self.rng.lit(-1.0, 1.0))), b(E::Var(z))),
                _ => {
                    let (f, _) = fit(self.expr(&inner, 1), 1.0);
                    E::Bin('*', b(f), b(E::Var(z)))
                }
            };
            body.push(S::Assign(sum.clone(), op, read));
            named = self.rng.chance(0.7);
        } else {
            let (e, _) = fit(self.expr(&inner, 2), 2.0);
            body.push(S::Assign(sum.clone(), op, e));
        }
        let range = match named {
            true => For::Named(i, 0, n),
            false => For::Range(i, n),
        };
        vec![S::Let(sum, init), S::For(range, body)]
    }
}

/// Whether a statement leaves a loop or returns early (a `while` written as
/// `loop { if !(…) { break; } … }` or `while let` breaks too).
impl Gen {
    /// An iterator chain over an array of the scope, and a bound on its
    /// value.
    fn chain(&mut self, s: &Scope, d: usize) -> Option<(E, f64)> {
        let arrays: Vec<Arr> = s.arrays.iter().filter(|a| !a.out).cloned().collect();
        if arrays.is_empty() {
            return None;
        }
        let mut a = arrays[self.rng.below(arrays.len())].clone();
        // now and then the source is a literal of the scope's values
        // (no helper calls in it, as in a closure)
        let lit = self.rng.chance(0.12).then(|| {
            let ucount = std::mem::replace(&mut self.ucount, 0);
            let k = 2 + self.rng.below(2);
            let es: Vec<E> = (0..k).map(|_| fit(self.expr(s, d.min(1)), 4.0).0).collect();
            self.ucount = ucount;
            es
        });
        if let Some(es) = &lit {
            a.len = es.len();
            a.dynamic = false;
        }
        // now and then a literal of pairs of constants, the closure's
        // pattern a tuple (data given as `(x, y)` pairs)
        let pairs = (lit.is_none() && self.rng.chance(0.08)).then(|| {
            let k = 2 + self.rng.below(2);
            let ps: Vec<(f64, f64)> = (0..k)
                .map(|_| (self.rng.lit(-1.0, 1.0), self.rng.lit(-1.0, 1.0)))
                .collect();
            (ps, self.rng.chance(0.5))
        });
        if let Some((ps, _)) = &pairs {
            a.len = ps.len();
            a.dynamic = false;
        }
        // now and then over the rows of a matrix knob, each passed on
        // borrowed to a function (from the stream of its own: every other
        // chain stays as it was)
        let rows = (!s.mats.is_empty() && self.rows.chance(0.35))
            .then(|| s.mats[self.rows.below(s.mats.len())].clone());
        let (lit, pairs) = match &rows {
            Some((m, r, _)) => {
                a.name = m.clone();
                a.len = *r;
                a.dynamic = false;
                (None, None)
            }
            None => (lit, pairs),
        };
        // now and then over chunks of the array: the element a chunk of
        // `len` elements or more (of varying length with a shorter last
        // one), `count` of them
        let chunks = (VIEWS
            && lit.is_none()
            && pairs.is_none()
            && rows.is_none()
            && !a.dynamic
            && a.len >= 2
            && self.rng.chance(0.2))
        .then(|| {
            let mut form = self.rng.below(3) as u8;
            let k = 1 + self.rng.below(a.len);
            if form == 2 && !a.len.is_multiple_of(k) && k > 4 {
                form = 0;
            }
            (form, k)
        });
        let chunk = chunks.map(|(form, k)| match form {
            0 => (k, a.len / k, false),
            1 => (k, a.len + 1 - k, false),
            _ if a.len.is_multiple_of(k) => (k, a.len / k, false),
            _ => (a.len % k, a.len.div_ceil(k), true),
        });
        let zip = (chunks.is_none() && pairs.is_none() && rows.is_none() && self.rng.chance(0.3))
            .then(|| arrays[self.rng.below(arrays.len())].clone());
        // now and then another array chained after the source (drawn from
        // the second stream: the rest of the program stays as it was)
        let join = (lit.is_none()
            && pairs.is_none()
            && chunks.is_none()
            && rows.is_none()
            && self.rare.chance(0.12))
        .then(|| arrays[self.rare.below(arrays.len())].clone());
        if let Some(j) = &join {
            a.len += j.len;
            a.dynamic |= j.dynamic;
        }
        // (a helper's slice may be longer than its least length: its
        // skipped part still holds one element less than that length)
        let zip_skip = zip.as_ref().is_some_and(|z| z.len >= 2) && self.rng.chance(0.3);
        // a helper's slice may be longer than its least length
        let n = match chunk {
            Some((_, count, _)) => count,
            None => zip
                .as_ref()
                .map_or(a.len, |z| (z.len - usize::from(zip_skip)).min(a.len)),
        };
        // (a chain of two is no `ExactSizeIterator`: zipped, it has no
        // `rev`)
        let rev = self.rng.chance(0.3) && !(join.is_some() && zip.is_some());
        let skip = if n > 1 && self.rng.chance(0.3) { 1 } else { 0 };
        let take = self.rng.chance(0.3).then(|| 1 + self.rng.below(2));
        let enumerate = self.rng.chance(0.3);
        // `.step_by(k)` now and then (from the stream of its own), over the
        // whole source: cut by `skip` and `take` too, the short arrays
        // here would leave one element, whose position no step changes
        let step = (!rev && chunk.is_none() && join.is_none() && pairs.is_none())
            .then(|| self.keeps.chance(0.2).then(|| 2 + self.keeps.below(2)))
            .flatten();
        let (skip, take) = match step {
            Some(_) => (0, None),
            None => (skip, take),
        };
        let filter = (zip.is_none()
            && pairs.is_none()
            && rows.is_none()
            && !enumerate
            && self.rng.chance(0.25))
        .then(|| self.rng.lit(-0.5, 0.5));
        let (v, w, k) = (self.name("v"), self.name("w"), self.name("k"));
        let mut inner = s.clone();
        // now and then a chunk named as the array it is a chunk of
        // (`h.chunks(2).map(|h| …)`), which the closure no longer reads
        // (from the stream of the rows: every other chain stays as it was)
        let v = match chunk.is_some() && self.rows.chance(0.3) {
            true => {
                inner.arrays.retain(|x| x.name != a.name);
                inner.lens.retain(|(_, x)| *x != a.name);
                inner.vecs.retain(|x| *x != a.name);
                a.name.clone()
            }
            false => v,
        };
        match (chunk, &pairs) {
            (Some((len, _, varies)), _) => {
                let mut c = Arr::new(v.clone(), len, false, true, Src::SliceRef);
                c.dynamic = varies;
                inner.arrays.push(c);
            }
            // the pair's fields, by reference (read as `*v`) or by value
            (None, Some((_, true))) => inner.derefs.extend([v.clone(), w.clone()]),
            (None, Some((_, false))) => {
                inner.scalars.push((v.clone(), 1.0));
                inner.scalars.push((w.clone(), 1.0));
            }
            (None, None) => match &rows {
                // a row, borrowed
                Some((_, _, c)) => {
                    inner
                        .arrays
                        .push(Arr::new(v.clone(), *c, false, true, Src::Ref))
                }
                None => inner.scalars.push((v.clone(), 4.0)),
            },
        }
        if zip.is_some() {
            inner.scalars.push((w.clone(), 4.0));
        }
        if enumerate {
            // a helper's slice may be longer than its least length: the
            // position then indexes other arrays modulo their lengths
            let dynamic = a.dynamic || zip.as_ref().is_some_and(|z| z.dynamic);
            inner
                .idx
                .push((k.clone(), if dynamic { usize::MAX } else { n }));
        }
        // no helper calls inside a closure
        let ucount = std::mem::replace(&mut self.ucount, 0);
        let nonempty = filter.is_none() && n > skip;
        let consume = match self.rng.below(10) {
            0 | 1 => Consume::Fold(b(fit(self.expr(s, d.min(1)), 1.0).0)),
            2 if nonempty && self.rng.chance(0.5) => Consume::Reduce(if self.generic {
                1
            } else {
                1 + self.rng.below(2) as u8
            }),
            2 if nonempty => Consume::Max,
            3 if nonempty && self.rng.chance(0.3) => Consume::Reduce(0),
            3 if nonempty => Consume::Min,
            4 if take.is_some() => Consume::Product,
            _ => Consume::Sum,
        };
        // now and then the mapped values kept by a `filter` (from a stream
        // of its own: the rest of the program stays as it was)
        let kept = (matches!(consume, Consume::Sum | Consume::Product | Consume::Fold(_))
            && self.keeps.chance(0.2))
        .then(|| (self.keeps.lit(-0.5, 0.5), self.keeps.chance(0.5)));
        let pair = matches!(consume, Consume::Fold(_)) && self.keeps.chance(0.4);
        let position = (matches!(consume, Consume::Sum)
            && kept.is_none()
            && filter.is_none()
            && !self.generic
            && self.keeps.chance(0.15))
        .then(|| self.keeps.lit(-0.5, 0.5));
        // now and then a sum's elements collected into a `Vec` instead,
        // its last and first read (from the stream of its own)
        let consume = match consume {
            Consume::Sum
                if kept.is_none() && position.is_none() && nonempty && self.keeps.chance(0.2) =>
            {
                Consume::Collect
            }
            other => other,
        };
        let limit = if matches!(consume, Consume::Product) {
            1.5
        } else {
            4.0
        };
        let pass = (zip.is_none()
            && chunks.is_none()
            && rows.is_none()
            && pairs.is_none()
            && !enumerate
            && filter.is_none()
            && !s.closures.is_empty()
            && self.rng.chance(0.4))
        .then(|| s.closures[self.rng.below(s.closures.len())].clone());
        let whole =
            (zip.is_some() && pass.is_none() && self.rng.chance(0.3)).then(|| self.name("p"));
        let (map, bm) = match &pass {
            Some((f, bf)) => (E::CallC(f.clone(), b(E::Var(v.clone()))), *bf),
            // (the pair's parts read once each, the rest from around)
            None if whole.is_some() => {
                let (e, be) = fit(self.expr(s, d), limit);
                let product = E::Bin('*', b(E::Var(v.clone())), b(E::Var(w.clone())));
                (E::Bin('+', b(product), b(e)), be + 16.0)
            }
            None => fit(self.expr(&inner, d), limit),
        };
        // a chunk's map reads the chunk
        let (map, bm) = match chunk {
            Some((len, _, _)) => {
                let at = E::Index(v.clone(), Ix::Const(self.rng.below(len)));
                let read = E::Bin('*', b(E::M1("tanh", b(at))), b(E::Lit(0.5)));
                (E::Bin('+', b(read), b(map)), bm + 0.5)
            }
            None => (map, bm),
        };
        // a row's map passes it on
        let (map, bm) = match rows {
            Some(_) => {
                let call = E::Bin('*', b(E::CallR(v.clone())), b(E::Lit(0.5)));
                (E::Bin('+', b(call), b(map)), bm + 1.5)
            }
            None => (map, bm),
        };
        // `.enumerate().rev()` (from the same stream): the positions
        // counted from the front while the elements come last first, the
        // map reading both, so a position counted in the order walked
        // changes the value (a chain of two is no `ExactSizeIterator`, so
        // its `enumerate` has no `rev`)
        // (not with `position`, which counts the elements walked: the dual
        // numbers' loop reads the place off the enumerate's position)
        let rev_after = enumerate
            && step.is_none()
            && position.is_none()
            && !rev
            && join.is_none()
            && chunk.is_none()
            && pairs.is_none()
            && whole.is_none()
            && self.keeps.chance(0.3);
        // (only into a fold, whose value the order of the elements changes,
        // of values that read the element: a `rev` lost or misplaced then
        // changes the value)
        let late_rev = (rev_after
            || (rev
                && skip == 0
                && take.is_none()
                && step.is_none()
                && !enumerate
                && chunk.is_none()
                && pairs.is_none()
                && whole.is_none()
                && pass.is_none()))
            && matches!(consume, Consume::Fold(_) | Consume::Reduce(0))
            && self.keeps.chance(0.6);
        // the element as a number (a row's first)
        let number = match rows {
            Some(_) => E::Index(v.clone(), Ix::Const(0)),
            None => E::Var(v.clone()),
        };
        let (map, bm) = match late_rev && !rev_after {
            true => {
                let at = E::Bin('*', b(number.clone()), b(E::Lit(0.25)));
                (E::Bin('+', b(map), b(at)), bm + 1.0)
            }
            false => (map, bm),
        };
        // (a stepped chain's positions too: each the count of the steps)
        let weigh = rev_after || (step.is_some() && enumerate && whole.is_none());
        let (map, bm) = match weigh {
            true => {
                let at = E::Bin('*', b(E::IdxF(k.clone())), b(number));
                (
                    E::Bin('+', b(map), b(E::Bin('*', b(at), b(E::Lit(0.25))))),
                    bm + n as f64,
                )
            }
            false => (map, bm),
        };
        // now and then the zipped array zipped again with itself (from the
        // rows' stream: every other chain stays as it was), its element
        // read, so a position misplaced in the second changes the value
        let zip_nested = zip.is_some() && whole.is_none() && self.rows.chance(0.3);
        let (map, bm) = match zip_nested {
            true => {
                let read = E::Bin('*', b(E::Var(w.clone())), b(E::Lit(0.5)));
                (E::Bin('+', b(map), b(read)), bm + 2.0)
            }
            false => (map, bm),
        };
        self.ucount = ucount;
        // now and then (from a stream of its own) the filter a
        // `take_while` (not before a `rev`: std's has none)
        let cut = filter.is_some() && !late_rev && self.empties.chance(0.3);
        // and a `reduce` or `min_by`
        // ended by `.unwrap_or(d)`, and a chain that may be empty, which
        // would have been summed, made one
        let plain_sum = matches!(consume, Consume::Sum)
            && !nonempty
            && kept.is_none()
            && position.is_none()
            && !pair;
        let (consume, or) = match consume {
            Consume::Reduce(0 | 1) | Consume::Min if self.empties.chance(0.3) => {
                let zero = !self.generic && self.empties.chance(0.3);
                let d = if zero {
                    0.0
                } else {
                    self.empties.lit(-0.5, 0.5)
                };
                (consume, Some(d))
            }
            Consume::Sum if plain_sum && self.empties.chance(0.4) => {
                let consume = match self.empties.below(3) {
                    0 => Consume::Min,
                    1 if !self.generic => Consume::Reduce(0),
                    _ => Consume::Reduce(1),
                };
                (consume, Some(self.empties.lit(-0.5, 0.5)))
            }
            other => (other, None),
        };
        let expect = or.is_none()
            && matches!(consume, Consume::Reduce(0 | 1) | Consume::Min)
            && self.empties.chance(0.3);
        let count = (take.unwrap_or(n + 3)).min(n + 3) as f64;
        let bound = match &consume {
            Consume::Sum => count * bm,
            Consume::Product => bm.powf(count),
            Consume::Fold(_) if pair => 2.0 * bm + 1.0 + 0.25 * count * bm * bm,
            Consume::Fold(_) => 2.0 * bm + 1.0,
            Consume::Max | Consume::Min | Consume::Reduce(1 | 2) => bm,
            Consume::Reduce(_) => 2.0 * bm,
            Consume::Collect => 1.5 * bm,
        };
        let bound = bound.max(or.map_or(0.0, f64::abs));
        let chain = Chain {
            src: a.name,
            lit,
            zip: zip.map(|z| z.name),
            rev,
            skip,
            take,
            enumerate,
            filter,
            kept,
            pair,
            position,
            v,
            w,
            k,
            map: b(map),
            consume,
            pass: pass.map(|(f, _)| f),
            chunks,
            pairs,
            whole,
            zip_skip,
            zip_nested,
            rev_after,
            late_rev,
            step,
            join: join.map(|j| j.name),
            rows: rows.is_some(),
            or,
            expect,
            cut,
        };
        Some((E::Chain(Box::new(chain)), bound))
    }

    /// An array of three made by a closure over `src`, a local array of
    /// three whose type Mica reads off its `let` (a knob may be a struct's
    /// field bound by `let`, whose type it does not know): the array's own
    /// `map`, or `std::array::from_fn` with the length in the `let`'s type.
    /// The closure reads its element, as `tanh`, and values around.
    fn made(&mut self, s: &mut Scope, src: String) -> S {
        let (m, v) = (self.name("mm"), self.name("v"));
        let from_fn = self.rng.chance(0.5);
        let mut inner = s.clone();
        let read = if from_fn {
            inner.idx.push((v.clone(), 3));
            E::Index(src.clone(), Ix::Var(v.clone(), false))
        } else {
            inner.scalars.push((v.clone(), 4.0));
            E::Var(v.clone())
        };
        // (no helper calls inside a closure)
        let ucount = std::mem::replace(&mut self.ucount, 0);
        let (e, _) = fit(self.expr(&inner, 1), 2.0);
        self.ucount = ucount;
        let body = E::Bin('+', b(E::M1("tanh", b(read))), b(e));
        s.arrays.push(Arr::new(m.clone(), 3, false, true, Src::Own));
        S::Made(m, src, v, body, from_fn)
    }

    /// `let f = |x: f64| …;` and a first call of it. The closure reads its
    /// parameter only: a binding it borrowed could not change while it
    /// lives, nor a later `let` shadow it (Mica refuses such a call, as it
    /// should). Closures reading recorded values around them are the
    /// chains' `map`s.
    fn closure(&mut self, s: &mut Scope, top: bool, out: &mut Vec<S>) {
        // (not `f`: `f64` is a type)
        let f = self.name("cl");
        let x = self.name("x");
        let inner = Scope {
            scalars: vec![(x.clone(), 4.0)],
            ..Scope::default()
        };
        let ucount = std::mem::replace(&mut self.ucount, 0);
        let plain = std::mem::replace(&mut self.plain, true);
        let (e, be) = fit(self.expr(&inner, 3), 4.0);
        self.plain = plain;
        self.ucount = ucount;
        // the parameter is read
        let body = E::Bin(
            '+',
            b(e),
            b(E::Bin('*', b(E::Var(x.clone())), b(E::Lit(0.3)))),
        );
        out.push(S::LetClosure(f.clone(), x, body));
        s.closures.push((f.clone(), be + 1.2));
        // and the closure called
        let t = self.name("t");
        let (arg, _) = fit(self.expr(s, 2), 4.0);
        let mut e = E::CallC(f, b(arg));
        if top {
            e = with_knob(e, &self.knobs);
        }
        out.push(S::Let(t.clone(), e));
        s.scalars.push((t.clone(), be + 2.5));
        if top {
            s.muts.push(t);
        } else if !s.muts.is_empty() {
            let m = s.muts[self.rng.below(s.muts.len())].clone();
            let e = E::Bin('*', b(E::M1("tanh", b(E::Var(t)))), b(E::Lit(0.1)));
            out.push(S::Assign(m, "+=", e));
        }
    }
}

fn flows(s: &S) -> bool {
    match s {
        S::Return(..) | S::Exit(..) | S::ExitTo(..) | S::LoopValue(..) => true,
        S::While(_, _, _, _, form) if *form != 0 => true,
        S::For(_, b) | S::While(_, _, _, b, _) => b.iter().any(flows),
        S::If(_, a, e) => a.iter().chain(e).any(flows),
        S::Match(arms) => arms.iter().flatten().any(flows),
        _ => false,
    }
}

fn is_out(p: &PKind) -> bool {
    matches!(p, PKind::Out | PKind::OutSlice(_))
}

/// Block helpers, and the calls to them.
impl Gen {
    /// A call to a block helper returning a scalar, or an array summed by
    /// a chain over the call (`u0(..).iter().sum()`), and writing no
    /// out-parameter, as an expression.
    fn ucall_expr(&mut self, s: &Scope, d: usize) -> Option<(E, f64)> {
        let ks: Vec<usize> = (0..self.ucount)
            .filter(|&k| {
                let u = &self.us[k];
                matches!(u.ret, Ret::Scalar | Ret::Arr)
                    && !u.kinds.iter().any(is_out)
                    && (FLOW_CALLS || !self.no_flow || !u.flow)
            })
            .collect();
        if ks.is_empty() {
            return None;
        }
        let k = ks[self.rng.below(ks.len())];
        let args = self.call_args(s, k, d)?;
        match self.us[k].ret {
            Ret::Arr => Some((E::SumU(k, args), 3.0 * self.us[k].bound)),
            _ => Some((E::CallU(k, args), self.us[k].bound)),
        }
    }

    /// A statement calling block helper `k`, its value bound by `let` (an
    /// array read as `r[i]` later, a tuple as two scalars), after a `let
    /// mut h = [0.0; 3]` where an out-parameter finds no local array to
    /// write. In a nested block, an update reads the value.
    fn ucall_stmt(&mut self, s: &mut Scope, k: usize, top: bool) -> Option<Vec<S>> {
        let Sig {
            kinds: ps,
            ret,
            bound,
            ..
        } = self.us[k].clone();
        let mut out = Vec::new();
        let outs = ps.iter().filter(|p| is_out(p)).count();
        let locals = s.arrays.iter().filter(|a| a.local && a.len == 3).count();
        let extra = outs > 0 && self.rng.chance(0.25);
        let n_fresh = outs.saturating_sub(locals).max(usize::from(extra));
        // an array made for the call is read after it, where a value may
        // take what is read (without `UNREAD_PARAMS`, only there)
        if !top && n_fresh > 0 && s.muts.is_empty() && !UNREAD_PARAMS {
            return None;
        }
        let mut fresh = Vec::new();
        for _ in 0..n_fresh {
            let h = self.name("h");
            out.push(S::LetArr(h.clone(), 3, None));
            // (in a nested block, read once after the call and written no
            // more: nothing would read a later write, and rustc would warn)
            s.arrays.push(Arr::new(h.clone(), 3, true, false, Src::Own));
            fresh.push(h);
        }
        let args = self.call_args(s, k, 2)?;
        let binds = match ret {
            Ret::Scalar => {
                let t = self.name("t");
                s.scalars.push((t.clone(), bound.min(8.0)));
                vec![t]
            }
            Ret::Arr => {
                let r = self.name("r");
                s.arrays.push(Arr::new(r.clone(), 3, false, true, Src::Own));
                vec![r]
            }
            Ret::Tuple => {
                let (p, q) = (self.name("t"), self.name("t"));
                s.scalars.push((p.clone(), 4.0));
                s.scalars.push((q.clone(), 4.0));
                vec![p, q]
            }
            Ret::Unit => Vec::new(),
        };
        out.push(S::Call(binds.clone(), k, ret, args));
        if !top && !binds.is_empty() && !s.muts.is_empty() {
            let m = s.muts[self.rng.below(s.muts.len())].clone();
            let read = match ret {
                Ret::Arr => E::Index(binds[0].clone(), Ix::Const(self.rng.below(3))),
                _ => E::Var(binds[self.rng.below(binds.len())].clone()),
            };
            let e = E::Bin('*', b(E::M1("tanh", b(read))), b(E::Lit(0.1)));
            out.push(S::Assign(m, "+=", e));
        }
        if !top {
            for a in s.arrays.iter_mut().filter(|a| fresh.contains(&a.name)) {
                a.local = false;
            }
        }
        if !top && !s.muts.is_empty() {
            for h in fresh {
                let m = s.muts[self.rng.below(s.muts.len())].clone();
                let read = E::Index(h, Ix::Const(self.rng.below(3)));
                let e = E::Bin('*', b(E::M1("tanh", b(read))), b(E::Lit(0.1)));
                out.push(S::Assign(m, "+=", e));
            }
        }
        Some(out)
    }

    /// A constant argument: a literal, or the untracked parameter.
    fn const_arg(&mut self) -> E {
        if !self.plain && self.rng.chance(0.3) {
            E::Param
        } else {
            E::Lit(self.rng.lit(-1.0, 1.0))
        }
    }

    /// Arguments for block helper `k`, from what `s` holds: out-parameters
    /// first, each a local array of its own that no other argument reads
    /// (`None` where there is none), then scalars (sometimes constants),
    /// arrays (knobs, locals, results, sub-slices, now and then the one
    /// just passed, or an array literal of constants or values).
    fn call_args(&mut self, s: &Scope, k: usize, d: usize) -> Option<Vec<Arg>> {
        let ps = self.us[k].kinds.clone();
        let mut args: Vec<Option<Arg>> = vec![None; ps.len()];
        let mut taken: Vec<String> = Vec::new();
        for (j, p) in ps.iter().enumerate() {
            let need = match p {
                PKind::Out => 3,
                PKind::OutSlice(l) => *l,
                _ => continue,
            };
            let cands: Vec<Arr> = s
                .arrays
                .iter()
                .filter(|a| a.local && a.len == 3 && !taken.contains(&a.name))
                .cloned()
                .collect();
            if cands.is_empty() {
                return None;
            }
            let a = cands[self.rng.below(cands.len())].clone();
            let range = if matches!(p, PKind::OutSlice(_)) && self.rng.chance(0.4) {
                let lo = self.rng.below(3 - need + 1);
                let hi = lo + need + self.rng.below(3 - need - lo + 1);
                Some((lo, hi))
            } else {
                None
            };
            taken.push(a.name.clone());
            args[j] = Some(Arg::A {
                name: a.name,
                src: a.src,
                to: *p,
                amp: false,
                range,
            });
        }
        let mut scope = s.clone();
        scope.arrays.retain(|a| !taken.contains(&a.name));
        let mut prev: Option<String> = None;
        for (j, p) in ps.iter().enumerate() {
            if args[j].is_some() {
                continue;
            }
            if *p == PKind::Scalar {
                let e = if self.rng.chance(0.2) {
                    self.const_arg()
                } else {
                    fit(self.expr(&scope, d.min(2)), 4.0).0
                };
                args[j] = Some(Arg::S(e));
                continue;
            }
            let need = match p {
                PKind::Slice(l) => *l,
                _ => 3,
            };
            let whole = |a: &Arr| {
                !a.out
                    && !a.dynamic
                    && a.len == 3
                    && [a.src.0, a.src.1]
                        .iter()
                        .all(|s| matches!(s, Src::Ref | Src::Own))
            };
            let cands: Vec<Arr> = scope
                .arrays
                .iter()
                .filter(|a| match p {
                    PKind::Slice(_) => !a.out && a.len >= need,
                    _ => whole(a),
                })
                .cloned()
                .collect();
            if cands.is_empty() || self.rng.chance(0.2) {
                let n = match p {
                    PKind::Slice(l) => *l + self.rng.below(4 - *l),
                    _ => 3,
                };
                let constant = self.rng.chance(0.5);
                let es = (0..n)
                    .map(|_| {
                        if constant {
                            self.const_arg()
                        } else {
                            fit(self.expr(&scope, 1), 1.0).0
                        }
                    })
                    .collect();
                args[j] = Some(Arg::L(*p, es));
                continue;
            }
            let again = prev
                .as_ref()
                .and_then(|n| cands.iter().find(|a| a.name == *n))
                .filter(|_| self.rng.chance(0.35))
                .cloned();
            let a = match again {
                Some(a) => a,
                None => cands[self.rng.below(cands.len())].clone(),
            };
            let range = if SUB_SLICES && matches!(p, PKind::Slice(_)) && self.rng.chance(0.4) {
                let lo = self.rng.below(a.len - need + 1);
                let hi = lo + need + self.rng.below(a.len - need - lo + 1);
                Some((lo, hi))
            } else {
                None
            };
            prev = Some(a.name.clone());
            let amp = self.rng.chance(0.5) && (REBORROWS || a.src.0 != Src::Ref);
            args[j] = Some(Arg::A {
                name: a.name,
                src: a.src,
                to: *p,
                amp,
                range,
            });
        }
        Some(args.into_iter().map(|a| a.unwrap()).collect())
    }

    /// Writes into a helper's out-parameters: all elements (an out slice:
    /// `for i in 0..z.len() { z[i] = …; }`) or some with `+=`.
    fn out_writes(&mut self, s: &Scope, params: &[(String, PKind)]) -> Vec<S> {
        let mut out = Vec::new();
        for (n, p) in params {
            match p {
                PKind::Out if self.rng.chance(0.5) => {
                    for i in 0..3 {
                        let e = fit(self.expr(s, 2), 1.0).0;
                        out.push(S::SetArr(n.clone(), Ix::Const(i), "=", e));
                    }
                }
                PKind::Out => {
                    for i in 0..3 {
                        if self.rng.chance(0.6) {
                            let e = fit(self.expr(s, 2), 1.0).0;
                            let e = E::Bin('*', b(e), b(E::Lit(0.25)));
                            out.push(S::SetArr(n.clone(), Ix::Const(i), "+=", e));
                        }
                    }
                }
                PKind::OutSlice(l) if !LEN_LOOPS && self.rng.chance(0.5) => {
                    for i in 0..*l {
                        let e = fit(self.expr(s, 2), 1.0).0;
                        out.push(S::SetArr(n.clone(), Ix::Const(i), "=", e));
                    }
                }
                PKind::OutSlice(_) if LEN_LOOPS && self.rng.chance(0.5) => {
                    let i = self.name("i");
                    let mut inner = s.clone();
                    inner.idx.push((i.clone(), 4));
                    inner.lens.push((i.clone(), n.clone()));
                    inner.in_loop += 1;
                    let e = fit(self.expr(&inner, 2), 1.0).0;
                    let set = S::SetArr(n.clone(), Ix::Var(i.clone(), false), "=", e);
                    out.push(S::For(For::Len(i, n.clone()), vec![set]));
                }
                PKind::OutSlice(l) => {
                    let e = fit(self.expr(s, 2), 1.0).0;
                    let e = E::Bin('*', b(e), b(E::Lit(0.25)));
                    let at = Ix::Const(self.rng.below(*l));
                    out.push(S::SetArr(n.clone(), at, "+=", e));
                }
                _ => {}
            }
        }
        out
    }

    /// Block helper `u{k}`: one to four parameters of every kind, a
    /// scalar, an array, a tuple or nothing (with an out-parameter) to
    /// return, a body of the generator's statements over the parameters
    /// (loops, branches, local arrays, an early `return`, calls to earlier
    /// helpers), the out-parameters written.
    fn block_helper(&mut self, k: usize) -> UHelper {
        let np = 1 + self.rng.below(4);
        // the parameters are `x0`, `a3`, …: the body's own names count on
        // past them, so none of its bindings shadows one (a loop's `a3`
        // over the parameter `a3`, unread, is an unused variable)
        self.fresh = self.fresh.max(np);
        let mut kinds: Vec<PKind> = (0..np)
            .map(|_| match self.rng.below(8) {
                0 | 1 => PKind::Scalar,
                2 => PKind::Arr,
                3 => PKind::Ref,
                4 | 5 => PKind::Slice(1 + self.rng.below(3)),
                6 => PKind::Out,
                _ => PKind::OutSlice(1 + self.rng.below(3)),
            })
            .collect();
        if kinds.iter().all(is_out) {
            kinds[0] = PKind::Scalar;
        }
        let has_out = kinds.iter().any(is_out);
        let ret = match self.rng.below(5) {
            _ if has_out && self.rng.chance(0.35) => Ret::Unit,
            0 | 1 => Ret::Scalar,
            2 => Ret::Arr,
            3 => Ret::Tuple,
            _ => Ret::Scalar,
        };
        let mut s = Scope::default();
        let mut pseudo = Vec::new();
        let mut params = Vec::new();
        for (j, p) in kinds.iter().enumerate() {
            let letter = match p {
                PKind::Scalar => "x",
                PKind::Arr => "v",
                PKind::Ref => "a",
                PKind::Slice(_) => "s",
                PKind::Out => "y",
                PKind::OutSlice(_) => "z",
            };
            let q = if CLASHING_NAMES { "" } else { "q" };
            let n = format!("{q}{letter}{j}");
            match p {
                PKind::Scalar => {
                    s.scalars.push((n.clone(), 4.0));
                    if self.rng.chance(0.3) {
                        s.muts.push(n.clone());
                    }
                    pseudo.push((n.clone(), Shape::Scalar));
                }
                PKind::Arr => {
                    // changed in the body, or iterated
                    let w = self.rng.chance(0.5) && COPIED_ARRAYS;
                    s.arrays.push(Arr::new(n.clone(), 3, w, !w, Src::Own));
                    pseudo.push((n.clone(), Shape::Arr(3)));
                }
                PKind::Ref => {
                    s.arrays.push(Arr::new(n.clone(), 3, false, true, Src::Ref));
                    pseudo.push((n.clone(), Shape::Arr(3)));
                }
                PKind::Slice(l) => {
                    let mut a = Arr::new(n.clone(), *l, false, true, Src::SliceRef);
                    a.dynamic = true;
                    s.arrays.push(a);
                    pseudo.push((n.clone(), Shape::Slice(*l)));
                }
                PKind::Out | PKind::OutSlice(_) => {
                    let l = match p {
                        PKind::OutSlice(l) => *l,
                        _ => 3,
                    };
                    let mut a = Arr::new(n.clone(), l, false, false, Src::Own);
                    a.out = true;
                    a.dynamic = *p != PKind::Out;
                    s.arrays.push(a);
                }
            }
            params.push((n, *p));
        }
        // the body's loop-carried values start from the first input
        let knobs = std::mem::replace(&mut self.knobs, pseudo);
        let (window, ucount, ret0) = (self.window, self.ucount, self.ret);
        self.window = false;
        self.ucount = k;
        self.ret = Some(ret);
        let mut body = Vec::new();
        if self.rng.chance(0.3) {
            let h = self.name("h");
            body.push(S::LetArr(h.clone(), 3, None));
            s.arrays.push(Arr::new(h, 3, true, false, Src::Own));
        }
        let first = self.rng.chance(0.3);
        if first {
            body.extend(self.out_writes(&s.clone(), &params));
        }
        let n = 1 + self.rng.below(4);
        body.extend(self.block(&mut s, 0, n));
        if !first {
            body.extend(self.out_writes(&s.clone(), &params));
        }
        let extra = match ret {
            Ret::Arr => (0..2).map(|_| fit(self.expr(&s, 2), 4.0).0).collect(),
            Ret::Tuple => vec![fit(self.expr(&s, 2), 4.0).0],
            _ => Vec::new(),
        };
        let by_value: Vec<String> = params
            .iter()
            .filter(|(_, p)| *p == PKind::Arr)
            .map(|(n, _)| n.clone())
            .collect();
        let tail_var =
            if COPIED_ARRAYS && ret == Ret::Arr && !by_value.is_empty() && self.rng.chance(0.4) {
                Some(by_value[self.rng.below(by_value.len())].clone())
            } else {
                None
            };
        self.knobs = knobs;
        (self.window, self.ucount, self.ret) = (window, ucount, ret0);
        // the sum of the body's values, and of the scalar parameters it
        // changes
        let changed = params
            .iter()
            .filter(|(n, p)| *p == PKind::Scalar && s.muts.contains(n))
            .count();
        let bound = 4.0 * (outputs_of(&body).len() + changed).max(1) as f64;
        let mut flow = body.iter().any(flows);
        for s in body.iter_mut() {
            ucalls_s(s, &mut |j| flow |= self.us[*j].flow);
        }
        self.us.push(Sig {
            kinds,
            ret,
            bound,
            flow,
        });
        UHelper {
            params,
            ret,
            body,
            extra,
            tail_var,
            squash: ret != Ret::Scalar && bound > 6.0,
            // (from the stream of its own)
            summed: ret == Ret::Scalar && self.keeps.chance(0.3),
        }
    }
}

pub fn generate(seed: u64) -> Program {
    let mut rng = Rng::new(seed);
    let window = rng.chance(0.4);
    let helper = rng.chance(0.6);
    let method = rng.chance(0.3);
    let f32 = rng.chance(0.15);
    let generic = rng.chance(0.15);
    let mut knobs = Vec::new();
    let nk = 1 + rng.below(4);
    for i in 0..nk {
        let sh = match rng.below(4) {
            0 | 1 => Shape::Scalar,
            2 => Shape::Arr(2 + rng.below(3)),
            3 if rng.chance(0.3) => Shape::Mat(2 + rng.below(2), 2),
            _ => Shape::Slice(1 + rng.below(4)),
        };
        let p = match sh {
            Shape::Scalar => "x",
            Shape::Arr(_) => "w",
            Shape::Slice(_) => "v",
            Shape::Mat(..) => "m",
        };
        knobs.push((format!("{p}{i}"), sh));
    }
    let mut g = Gen {
        rng,
        rare: Rng::new(seed ^ 0x5bd1_e995_a5a5_0f0f),
        steps: Rng::new(seed ^ 0x2545_f491_4f6c_dd1d),
        pushes: Rng::new(seed ^ 0x9e37_79b9_7f4a_7c15),
        sorts: Rng::new(seed ^ 0xc2b2_ae3d_27d4_eb4f),
        options: Rng::new(seed ^ 0x1656_67b1_9e37_79f9),
        keeps: Rng::new(seed ^ 0x27d4_eb2f_1656_67c5),
        firsts: Rng::new(seed ^ 0x85eb_ca6b_c2b2_ae35),
        moves: Rng::new(seed ^ 0x61c8_8646_80b5_83eb),
        rows: Rng::new(seed ^ 0x3c6e_f372_fe94_f82b),
        empties: Rng::new(seed ^ 0x4cf5_ad43_2745_937f),
        fresh: 0,
        window,
        helper,
        // (a generic program has no method: its receiver's field is `f64`)
        method: method && !generic,
        generic,
        plain: true,
        in_method: false,
        knobs: knobs.clone(),
        us: Vec::new(),
        ucount: 0,
        no_flow: false,
        ret: None,
    };
    let mut hs = Scope::default();
    hs.scalars.push(("a".into(), 4.0));
    hs.scalars.push(("b".into(), 4.0));
    let hv = g.name("t");
    let he = fit(g.expr(&hs, 3), 4.0).0;
    let helper_body = vec![S::Let(hv.clone(), he)];
    hs.scalars.push((hv, 4.0));
    let helper_out = fit(g.expr(&hs, 2), 4.0).0;
    // the method: like the helper, and it reads its receiver's field
    g.in_method = true;
    let mut ms = Scope::default();
    ms.scalars.push(("a".into(), 4.0));
    ms.scalars.push(("b".into(), 4.0));
    let mv = g.name("t");
    let me = fit(g.expr(&ms, 3), 4.0).0;
    let method_body = vec![S::Let(mv.clone(), me)];
    ms.scalars.push((mv, 4.0));
    let mo = fit(g.expr(&ms, 2), 4.0).0;
    let method_out = E::Bin(
        '+',
        b(mo),
        b(E::Bin('*', b(E::SelfS), b(E::Var("a".into())))),
    );
    g.in_method = false;
    // block helpers (then the function is written in a `#[tape] mod`)
    let nu = if g.rng.chance(0.35) {
        1 + g.rng.below(3)
    } else {
        0
    };
    let us: Vec<UHelper> = (0..nu).map(|k| g.block_helper(k)).collect();
    g.ucount = nu;
    g.plain = false;
    let body = g.top(&knobs);
    let mut rng = g.rng;
    let dim: usize = knobs
        .iter()
        .map(|(_, s)| match s {
            Shape::Scalar => 1,
            Shape::Arr(n) | Shape::Slice(n) => *n,
            Shape::Mat(r, c) => r * c,
        })
        .sum();
    // an `f32` program's point is exact in `f32`
    let round = |x: f64| if f32 { x as f32 as f64 } else { x };
    let at = (0..dim).map(|_| round(rng.uniform(-1.5, 1.5))).collect();
    let cp = round(rng.uniform(-1.0, 1.0));
    let k = rng.below(4);
    let obj = rng.lit(-1.0, 1.0);
    // (`MICA_DIFF_NO_STRUCTS` writes the same program with one parameter
    // per knob, to tell a struct's part in a finding)
    let structs = rng.chance(0.2) && std::env::var("MICA_DIFF_NO_STRUCTS").is_err();
    // (drawn from a stream of their own: every other program of a seed
    // stays as it was)
    let mut methods = Rng::new(seed ^ 0x94d0_49bb_1331_11eb);
    let struct_method = methods.chance(0.5);
    let struct_array = methods.chance(0.5);
    let struct_walk = methods.chance(0.5);
    let struct_copy = methods.chance(0.5);
    Program {
        knobs,
        window,
        f32,
        generic,
        structs,
        struct_method,
        struct_array,
        struct_walk,
        struct_copy,
        helper: helper_body,
        helper_out,
        method: method_body,
        method_out,
        obj,
        body,
        us,
        at,
        cp,
        k,
    }
}

// ---------------------------------------------------------------- names used

fn refs_e(e: &E, r: &mut BTreeSet<String>) {
    match e {
        E::Var(n) | E::Deref(n, _) | E::IdxF(n) | E::CallG(n) | E::CallR(n) | E::CallV(n, _) => {
            r.insert(n.clone());
        }
        E::CallN(a, es, w) => {
            if let Some(a) = a {
                r.insert(a.clone());
            } else {
                es.iter().for_each(|e| refs_e(e, r));
            }
            refs_e(w, r);
        }
        E::SelfS => {}
        E::CallM(x, y) => {
            r.insert("o".into());
            refs_e(x, r);
            refs_e(y, r);
        }
        E::Index(n, ix) => {
            r.insert(n.clone());
            if let Ix::Var(i, _) | Ix::Off(i, _) | Ix::Twice(i) | Ix::Stride(i, ..) = ix {
                r.insert(i.clone());
            }
            if let Ix::Signed(j, k) = ix {
                r.insert(j.clone());
                r.insert(k.clone());
            }
        }
        E::Index2(n, ix, _, jx, _) => {
            r.insert(n.clone());
            for x in [ix, jx] {
                if let Ix::Var(i, _) | Ix::Off(i, _) | Ix::Twice(i) | Ix::Stride(i, ..) = x {
                    r.insert(i.clone());
                }
            }
        }
        E::Lit(_) => {}
        E::Param => {
            r.insert("cp".into());
        }
        E::Bin(_, x, y) | E::M2(_, x, y) | E::CallH(x, y) => {
            refs_e(x, r);
            refs_e(y, r);
        }
        E::Shadow(_, x, y) => {
            refs_e(x, r);
            refs_e(y, r);
        }
        E::Neg(x) | E::M1(_, x) | E::Powi(x, _) | E::Fun(_, x) | E::Custom(x) => refs_e(x, r),
        E::MulAdd(x, y, z) => {
            refs_e(x, r);
            refs_e(y, r);
            refs_e(z, r);
        }
        E::If(c, x, y) => {
            refs_c(c, r);
            refs_e(x, r);
            refs_e(y, r);
        }
        E::Guard(_, x, _, a, o) | E::Opt(_, x, _, a, o, _) => {
            refs_e(x, r);
            refs_e(a, r);
            refs_e(o, r);
        }
        E::Match(arms) => {
            r.insert("k".into());
            arms.iter().for_each(|a| refs_e(a, r));
        }
        E::CallU(_, args) | E::SumU(_, args) => args.iter().for_each(|a| refs_arg(a, r, None)),
        E::Pack(_, es) => es.iter().for_each(|e| refs_e(e, r)),
        E::Chain(c) => {
            match (&c.lit, &c.pairs) {
                (Some(es), _) => es.iter().for_each(|e| refs_e(e, r)),
                (None, Some(_)) => {}
                (None, None) => {
                    r.insert(c.src.clone());
                }
            }
            if let Some(z) = &c.zip {
                r.insert(z.clone());
            }
            if let Some(j) = &c.join {
                r.insert(j.clone());
            }
            if let Some(f) = &c.pass {
                r.insert(f.clone());
            }
            if let Consume::Fold(init) = &c.consume {
                refs_e(init, r);
            }
            refs_e(&c.map, r);
        }
        E::CallC(f, x) => {
            r.insert(f.clone());
            refs_e(x, r);
        }
    }
}

/// The names an argument reads (and, for an out-parameter, writes).
fn refs_arg(a: &Arg, r: &mut BTreeSet<String>, assigned: Option<&mut BTreeSet<String>>) {
    match a {
        Arg::S(e) => refs_e(e, r),
        Arg::L(_, es) => es.iter().for_each(|e| refs_e(e, r)),
        Arg::A { name, to, .. } => {
            r.insert(name.clone());
            if let (true, Some(asg)) = (is_out(to), assigned) {
                asg.insert(name.clone());
            }
        }
    }
}

fn refs_c(c: &Cond, r: &mut BTreeSet<String>) {
    refs_e(&c.a, r);
    refs_e(&c.b, r);
    if let Some(Test::Any(w, ..)) = &c.test {
        r.insert(w.clone());
    }
}

fn refs_s(s: &S, r: &mut BTreeSet<String>, assigned: &mut BTreeSet<String>) {
    match s {
        S::Let(_, e) => refs_e(e, r),
        S::LetClosure(_, _, e) => refs_e(e, r),
        S::View(_, w, _, _, by, _) => {
            r.insert(w.clone());
            if let Some(i) = by {
                r.insert(i.clone());
            }
        }
        S::Recopy(h, w, _, _, by, _) => {
            assigned.insert(h.clone());
            r.insert(h.clone());
            r.insert(w.clone());
            if let Some(i) = by {
                r.insert(i.clone());
            }
        }
        S::Unpack(_, h, _) => {
            r.insert(h.clone());
        }
        S::LetBorrow(_, d) | S::RefElem(_, d, _) => {
            r.insert(d.clone());
        }
        S::Cursor(_, _, w, m, _, _) => {
            r.insert(w.clone());
            assigned.insert(m.clone());
        }
        S::Sorted(w, _, m, _) => {
            r.insert(w.clone());
            assigned.insert(m.clone());
        }
        S::IfGet(v, w, _, _, m, then, other) => {
            r.insert(w.clone());
            r.insert(v.clone());
            assigned.insert(m.clone());
            refs_e(then, r);
            refs_e(other, r);
        }
        S::Rebind(c, w, _) => {
            assigned.insert(c.clone());
            r.insert(c.clone());
            r.insert(w.clone());
        }
        S::SwapVecs(c, v, _) => {
            for n in [c, v] {
                assigned.insert(n.clone());
                r.insert(n.clone());
            }
        }
        S::Assign(n, _, e) => {
            assigned.insert(n.clone());
            refs_e(e, r);
        }
        S::AssignFirst(n, _, e) => {
            assigned.insert(n.clone());
            r.insert(n.clone());
            refs_e(e, r);
        }
        S::LetArr(_, _, init) => init.iter().flatten().for_each(|e| refs_e(e, r)),
        S::Made(_, src, _, e, _) => {
            r.insert(src.clone());
            refs_e(e, r);
        }
        S::LetMat(_, _, rows, _) => rows.iter().flatten().flatten().for_each(|e| refs_e(e, r)),
        S::LetVec(_, el) => el.iter().for_each(|e| refs_e(e, r)),
        S::SetMat(n, ix, jx, _, _, e) => {
            assigned.insert(n.clone());
            r.insert(n.clone());
            for x in [ix, jx] {
                if let Ix::Var(i, _) | Ix::Off(i, _) | Ix::Twice(i) | Ix::Stride(i, ..) = x {
                    r.insert(i.clone());
                }
            }
            refs_e(e, r);
        }
        S::LetFill(_, e, _, _) => e.iter().for_each(|e| refs_e(e, r)),
        S::Pushed(_, k, e, ..) => {
            refs_e(e, r);
            r.remove(k);
        }
        S::LetScratch(_, e, i) => {
            refs_e(e, r);
            r.insert(i.clone());
        }
        S::Regrow(h, i, e) => {
            assigned.insert(h.clone());
            r.insert(h.clone());
            r.insert(i.clone());
            refs_e(e, r);
        }
        S::MutEach(_, h, _, e, _, _, _) => {
            assigned.insert(h.clone());
            r.insert(h.clone());
            refs_e(e, r);
        }
        S::SetArrMoved(n, _, _, _, e) => {
            assigned.insert(n.clone());
            r.insert(n.clone());
            refs_e(e, r);
        }
        S::SetArr(n, ix, _, e) | S::SetArrFirst(n, ix, _, e) => {
            assigned.insert(n.clone());
            r.insert(n.clone());
            if let Ix::Var(i, _) | Ix::Off(i, _) | Ix::Twice(i) | Ix::Stride(i, ..) = ix {
                r.insert(i.clone());
            }
            refs_e(e, r);
        }
        S::LetTuple(_, _, x, y, _) => {
            refs_e(x, r);
            refs_e(y, r);
        }
        S::For(f, body) => {
            match f {
                For::Range(..)
                | For::Span(..)
                | For::Named(..)
                | For::Back(..)
                | For::Signed(..) => {}
                For::Tail(_, i) | For::Head(_, i) => {
                    r.insert(i.clone());
                }
                For::Iter(_, a, _) | For::Enum(_, _, a) | For::Len(_, a) => {
                    r.insert(a.clone());
                }
                For::Zip(_, _, a, c) => {
                    r.insert(a.clone());
                    r.insert(c.clone());
                }
                For::Chunks(_, a, _, _, _) => {
                    r.insert(a.clone());
                }
            }
            body.iter().for_each(|s| refs_s(s, r, assigned));
        }
        S::While(_, _, c, body, _) => {
            if let Some(c) = c {
                refs_c(c, r);
            }
            body.iter().for_each(|s| refs_s(s, r, assigned));
        }
        S::If(c, a, e) => {
            refs_c(c, r);
            a.iter().chain(e).for_each(|s| refs_s(s, r, assigned));
        }
        S::Match(arms) => {
            r.insert("k".into());
            arms.iter().flatten().for_each(|s| refs_s(s, r, assigned));
        }
        S::Return(c, e) => {
            refs_c(c, r);
            refs_e(e, r);
        }
        S::Exit(c, _) => refs_c(c, r),
        S::Shadow(n, e, m) => {
            r.insert(n.clone());
            assigned.insert(m.clone());
            refs_e(e, r);
        }
        S::ShiftIdx(i, _) => {
            r.insert(i.clone());
        }
        S::LetIdx(_, row, _, col) => {
            r.insert(row.clone());
            r.insert(col.clone());
        }
        S::ShadowLet(_, e) => refs_e(e, r),
        S::ExitTo(c, _, _) => refs_c(c, r),
        S::Whole(h, op) => {
            assigned.insert(h.clone());
            r.insert(h.clone());
            match op {
                Whole::Assign(es) => es.iter().for_each(|e| refs_e(e, r)),
                Whole::Fill(e) => refs_e(e, r),
                Whole::Swap(..) => {}
                Whole::CopyFrom(g) => {
                    r.insert(g.clone());
                }
                Whole::MemSwap(g) => {
                    assigned.insert(g.clone());
                    r.insert(g.clone());
                }
            }
        }
        S::SwapScalars(a, c) => {
            for n in [a, c] {
                assigned.insert(n.clone());
                r.insert(n.clone());
            }
        }
        S::LetIf(_, _, c, th, el) => {
            refs_c(c, r);
            th.iter().chain(el).for_each(|e| refs_e(e, r));
        }
        S::LoopValue(_, _, _, c, body, e, _) => {
            refs_c(c, r);
            refs_e(e, r);
            body.iter().for_each(|s| refs_s(s, r, assigned));
        }
        S::Call(_, _, _, args) => args
            .iter()
            .for_each(|a| refs_arg(a, r, Some(&mut *assigned))),
    }
}

/// The label a `for` loop gets (written only if an exit names it).
fn label_of(f: &For) -> String {
    let first = match f {
        For::Range(i, _)
        | For::Span(i, _, _)
        | For::Named(i, _, _)
        | For::Back(i, _, _)
        | For::Tail(i, _)
        | For::Head(i, _)
        | For::Signed(i, ..)
        | For::Iter(i, _, _)
        | For::Len(i, _) => i,
        For::Enum(j, _, _) | For::Zip(j, _, _, _) => j,
        For::Chunks(c, _, _, _, j) => j.as_ref().unwrap_or(c),
    };
    format!("l{first}")
}

/// Whether an exit in `body` names `label`.
fn uses_label(body: &[S], label: &str) -> bool {
    body.iter().any(|s| match s {
        S::ExitTo(_, _, l) => l == label,
        S::For(_, b) | S::While(_, _, _, b, _) => uses_label(b, label),
        S::If(_, a, e) => uses_label(a, label) || uses_label(e, label),
        S::Match(arms) => arms.iter().any(|a| uses_label(a, label)),
        _ => false,
    })
}

// ---------------------------------------------------------------- rendering

/// Renders one program for one dialect.
struct R<'p> {
    dual: bool,
    f32: bool,
    /// Mica's dialect is written generic over `T` (see `Program::generic`)
    generic: bool,
    used: &'p BTreeSet<String>,
    assigned: &'p BTreeSet<String>,
    id: usize,
}

/// The named bounds a loop may be written with (see `R::bound`), put
/// before the programs.
pub const BOUNDS: &str = "\n/// Loop bounds by name: a loop over one is not written out.\n\
    pub const K0: usize = 0;\npub const K1: usize = 1;\npub const K2: usize = 2;\n\
    pub const K3: usize = 3;\npub const K4: usize = 4;\npub const K5: usize = 5;\n\
    pub const K6: usize = 6;\npub const K7: usize = 7;\npub const K8: usize = 8;\n";

impl R<'_> {
    /// `place op= { place = place * 0.5 + e; v }` ([`S::AssignFirst`]);
    /// in the dual numbers and the generic dialect the value bound first
    /// (`op=` on a type that is not a primitive float borrows the place
    /// before the value runs), which is the order Rust gives floats.
    fn assign_first(&self, o: &mut String, pad: &str, place: &str, op: &str, e: &E) {
        let (h, t) = (self.lit(0.5).0, self.lit(0.1).0);
        let value = if op == "*=" {
            format!("{} + {place} * {}", self.lit(0.9).0, self.lit(0.05).0)
        } else {
            format!("{place} * {t}")
        };
        let set = format!("{place} = {place} * {h} + {};", self.atom(e));
        if self.dual || self.generic {
            writeln!(
                o,
                "{pad}{{ let set_f = {{ {set} {value} }}; {place} {op} set_f; }}"
            )
            .unwrap();
        } else {
            writeln!(o, "{pad}{place} {op} {{").unwrap();
            writeln!(o, "{pad}    {set}").unwrap();
            writeln!(o, "{pad}    {value}").unwrap();
            writeln!(o, "{pad}}};").unwrap();
        }
    }

    /// `{ let mut q = start; h[q] op= { q = (q + 1) % len; v }; }`
    /// ([`S::SetArrMoved`]); in the dual numbers and the generic dialect
    /// the value bound first, as in [`R::assign_first`].
    fn moved_write(
        &self,
        o: &mut String,
        pad: &str,
        n: &str,
        (len, start): (usize, usize),
        op: &str,
        e: &E,
    ) {
        let h = self.n(n);
        let place = format!("{h}[q_mv]");
        let e = self.atom(e);
        let value = match op {
            "*=" => format!("{} + {e} * {}", self.lit(0.9).0, self.lit(0.05).0),
            _ => format!("{place} * {} + {e} * {}", self.lit(0.5).0, self.lit(0.25).0),
        };
        let step = format!("q_mv = (q_mv + 1) % {len};");
        writeln!(o, "{pad}{{").unwrap();
        writeln!(o, "{pad}    let mut q_mv = {start};").unwrap();
        if self.dual || self.generic {
            writeln!(o, "{pad}    let set_f = {{ {step} {value} }};").unwrap();
            writeln!(o, "{pad}    {place} {op} set_f;").unwrap();
        } else {
            writeln!(o, "{pad}    {place} {op} {{ {step} {value} }};").unwrap();
        }
        writeln!(o, "{pad}}}").unwrap();
    }

    /// A literal loop bound `n` as written: the literal, or in about half
    /// the loops (by the program and the counter's name) a named constant.
    /// The adjoint that takes shortcuts writes a short loop over a literal
    /// range out (`lower/unroll.rs`) and keeps one over a named bound, so
    /// both, and the shortcuts loops take, are written.
    fn bound(&self, var: &str, n: usize) -> String {
        let h = var
            .bytes()
            .fold(self.id, |h, b| h.wrapping_mul(31).wrapping_add(b as usize));
        if n <= 8 && h % 2 == 0 {
            format!("K{n}")
        } else {
            n.to_string()
        }
    }

    /// A range loop's counter as its head binds it: [`R::n`]'s name, or
    /// `_` for a third of the counters nothing reads.
    fn counter(&self, name: &str) -> String {
        if !self.used.contains(name) && (self.id + 7 * name.len()).is_multiple_of(3) {
            "_".to_string()
        } else {
            self.n(name)
        }
    }

    fn n(&self, name: &str) -> String {
        if self.used.contains(name) {
            name.to_string()
        } else {
            format!("_{name}")
        }
    }
    /// The float type: `f64`, `f32`, or their dual numbers.
    fn t(&self) -> &'static str {
        match (self.dual, self.f32) {
            (false, _) if self.generic => "T",
            (false, false) => "f64",
            (false, true) => "f32",
            (true, false) => "Dual",
            (true, true) => "Dual32",
        }
    }
    /// The suffix of the dual numbers' free functions (`cst32`, `gt32`, …).
    fn sfx(&self) -> &'static str {
        if self.f32 {
            "32"
        } else {
            ""
        }
    }
    /// A constant of the float type.
    fn cst(&self, s: &str) -> String {
        format!("cst{}({s})", self.sfx())
    }
    fn lit(&self, l: f64) -> (String, bool) {
        if !l.is_finite() {
            let name = match l {
                _ if l.is_nan() => "NAN",
                _ if l > 0.0 => "INFINITY",
                _ => "NEG_INFINITY",
            };
            let float = if self.f32 { "f32" } else { "f64" };
            return if self.dual {
                (self.cst(&format!("{float}::{name}")), true)
            } else if self.generic {
                (format!("T::from(f64::{name}).unwrap()"), true)
            } else {
                (format!("{float}::{name}"), true)
            };
        }
        let s = format!("{l:?}");
        if self.dual {
            (self.cst(&s), true)
        } else if self.generic {
            (format!("T::from({s}).unwrap()"), true)
        } else {
            // `-0.0` too is not an atom: `-0.0_f64.sin()` is `-(0.0.sin())`
            (format!("{s}_{}", self.t()), !s.starts_with('-'))
        }
    }
    /// A method call's receiver. A generic program's `&T` is dereferenced
    /// as written: on `&T`, `a.max(b)` and `a.min(b)` name `Ord`'s methods
    /// (rustc does not compile them for `T: Float`, Mica or not).
    fn recv(&self, e: &E) -> String {
        if let (E::Deref(n, true), false) = (e, self.generic) {
            return n.clone();
        }
        // `h.last().unwrap().sin()`: the method through the reference
        if let (E::Index(a, Ix::End(last)), false) = (e, self.generic) {
            let end = if *last { "last" } else { "first" };
            return format!("{a}.{end}().unwrap()");
        }
        self.atom(e)
    }
    fn atom(&self, e: &E) -> String {
        let (s, a) = self.e(e);
        if a {
            s
        } else {
            format!("({s})")
        }
    }
    fn ix(&self, arr: &str, ix: &Ix, len: Option<usize>) -> String {
        match ix {
            Ix::Const(c) => format!("{arr}[{c}]"),
            Ix::Borrowed(c) => format!("{{ let r = &{arr}; r[{c}] }}"),
            Ix::End(false) => format!("*{arr}.first().unwrap()"),
            Ix::End(true) => format!("*{arr}.last().unwrap()"),
            Ix::IterEnd(false) => format!("*{arr}.iter().next().unwrap()"),
            Ix::IterEnd(true) => format!("*{arr}.iter().last().unwrap()"),
            Ix::Var(i, true) => match len {
                Some(l) => format!("{arr}[{i} % {l}]"),
                None => format!("{arr}[{i} % {arr}.len()]"),
            },
            Ix::Var(i, false) => format!("{arr}[{i}]"),
            Ix::Off(i, k) if *k < 0 => format!("{arr}[{i} - {}]", -k),
            Ix::Off(i, k) => format!("{arr}[{i} + {k}]"),
            Ix::Twice(i) => format!("{arr}[2 * {i}]"),
            Ix::Stride(i, true, m) => format!("{arr}[{i} + {m}]"),
            Ix::Signed(j, k) => format!("{arr}[({j} as i64 + {k}) as usize]"),
            Ix::Stride(i, false, m) => format!("{arr}[{i} - {m}]"),
        }
    }
    /// The rendering and whether it is an atom (safe as a receiver).
    fn e(&self, e: &E) -> (String, bool) {
        match e {
            E::Var(n) => (n.clone(), true),
            E::Deref(n, _) => (format!("*{n}"), false),
            E::Lit(l) => self.lit(*l),
            E::Param => (
                if self.dual {
                    self.cst("cp")
                } else {
                    "cp".into()
                },
                true,
            ),
            E::SelfS => (
                if self.dual {
                    self.cst("o.s")
                } else {
                    "self.s".into()
                },
                true,
            ),
            E::IdxF(i) => {
                let t = if self.f32 { "f32" } else { "f64" };
                if self.dual {
                    (self.cst(&format!("{i} as {t}")), true)
                } else if self.generic {
                    (format!("T::from({i}).unwrap()"), true)
                } else {
                    (format!("{i} as {t}"), false)
                }
            }
            // a read behind the loop's index through a named index (`let
            // qi = i - 1;`), which the reverse reads through its definition
            E::Index(a, Ix::Off(i, k)) if *k < 0 => {
                (format!("{{ let qi = {i} - {}; {a}[qi] }}", -k), false)
            }
            // a block: parenthesised as an operand or a receiver
            E::Index(a, ix @ (Ix::Borrowed(_) | Ix::End(_) | Ix::IterEnd(_))) => {
                (self.ix(a, ix, None), false)
            }
            E::Index(a, ix) => (self.ix(a, ix, None), true),
            E::Index2(m, ix, r, jx, c) => {
                let one = |x: &Ix, n: usize| match x {
                    Ix::Const(k) => k.to_string(),
                    Ix::Var(i, true) => format!("{i} % {n}"),
                    Ix::Var(i, false) => i.clone(),
                    Ix::Off(i, k) => format!("{i} + {k}"),
                    Ix::Twice(i) => format!("2 * {i}"),
                    Ix::Stride(i, true, m) => format!("{i} + {m}"),
                    Ix::Signed(j, k) => format!("({j} as i64 + {k}) as usize"),
                    Ix::Stride(i, false, m) => format!("{i} - {m}"),
                    Ix::Borrowed(k) => k.to_string(),
                    Ix::End(_) | Ix::IterEnd(_) => unreachable!("a matrix's rows are indexed"),
                };
                (format!("{m}[{}][{}]", one(ix, *r), one(jx, *c)), true)
            }
            E::Bin(',', x, y) => (format!("{}, {}", self.e(x).0, self.e(y).0), false),
            E::Bin(op, x, y) => (format!("{} {op} {}", self.atom(x), self.atom(y)), false),
            E::Neg(x) => (format!("-{}", self.atom(x)), false),
            E::M1(f, x) => (format!("{}.{f}()", self.recv(x)), true),
            E::M2(f, x, y) => (format!("{}.{f}({})", self.recv(x), self.e(y).0), true),
            E::Powi(x, n) => (format!("{}.powi({n})", self.recv(x)), true),
            E::MulAdd(x, y, z) => (
                format!("{}.mul_add({}, {})", self.recv(x), self.e(y).0, self.e(z).0),
                true,
            ),
            E::Fun(f, x) => {
                if self.dual {
                    (format!("{f}{}({})", self.sfx(), self.e(x).0), true)
                } else {
                    (format!("mica::{f}({})", self.e(x).0), true)
                }
            }
            E::Custom(x) => {
                let d = if self.dual { "_d" } else { "" };
                (format!("custom{}{d}({})", self.sfx(), self.e(x).0), true)
            }
            E::CallM(x, y) => {
                let (x, y) = (self.e(x).0, self.e(y).0);
                if self.dual {
                    (format!("p{}_m_d(o, {x}, {y})", self.id), true)
                } else {
                    (format!("o.m({x}, {y})"), true)
                }
            }
            E::CallH(x, y) => {
                let d = if self.dual { "_d" } else { "" };
                let id = self.id;
                (
                    format!("p{id}_h{d}({}, {})", self.e(x).0, self.e(y).0),
                    true,
                )
            }
            E::CallG(a) => {
                let d = if self.dual { "_d" } else { "" };
                (format!("p{}_g{d}({a})", self.id), true)
            }
            E::CallR(v) => {
                let d = if self.dual { "_d" } else { "" };
                (format!("p{}_r{d}({v})", self.id), true)
            }
            E::CallN(a, es, w) => {
                let d = if self.dual { "_d" } else { "" };
                let array = match a {
                    Some(a) => a.clone(),
                    None => {
                        let es: Vec<String> = es.iter().map(|e| self.e(e).0).collect();
                        format!("[{}]", es.join(", "))
                    }
                };
                (
                    format!("p{}_n{d}(&{array}, {})", self.id, self.e(w).0),
                    true,
                )
            }
            E::CallV(a, k) => {
                let d = if self.dual { "_d" } else { "" };
                let id = self.id;
                let text = match k {
                    3 => format!("{{ let (q0, q1, _) = p{id}_t{d}({a}); q0 * q1 }}"),
                    4 => format!("{{ let (_, q1, mut q2) = p{id}_t{d}({a}); q2 -= q1; q2 }}"),
                    5 => format!("{{ let (q0, q1, q2) = p{id}_t{d}({a}); q0 + q1 * q2 }}"),
                    _ => format!("p{id}_v{d}({a})[{k}]"),
                };
                // A block in front of an operator ends a match arm or a
                // statement, so the tuple forms are not atomic.
                (text, *k < 3)
            }
            E::If(c, x, y) => (
                format!(
                    "if {} {{ {} }} else {{ {} }}",
                    self.c(c),
                    self.e(x).0,
                    self.e(y).0
                ),
                false,
            ),
            // the dual numbers: the `if` the `match` (or the `Option`'s
            // test) is
            E::Guard(g, x, c, a, o) | E::Opt(g, x, c, a, o, _) if self.dual => (
                format!(
                    "{{ let {g} = {}; if gt{}({g}, {}) {{ {} }} else {{ {} }} }}",
                    self.e(x).0,
                    self.sfx(),
                    self.cst(&format!("{c:?}")),
                    self.e(a).0,
                    self.e(o).0
                ),
                false,
            ),
            E::Opt(g, x, c, a, o, by_if) => {
                let made = format!(
                    "{{ let {g}_o = {}; if {g}_o > {} {{ Some({g}_o) }} else {{ None }} }}",
                    self.e(x).0,
                    self.lit(*c).0
                );
                let mut used = BTreeSet::new();
                refs_e(a, &mut used);
                let bind = if used.contains(g) { g.as_str() } else { "_" };
                let (a, o) = (self.e(a).0, self.e(o).0);
                let text = match by_if {
                    true => format!("if let Some({bind}) = {made} {{ {a} }} else {{ {o} }}"),
                    false => format!("match {made} {{ Some({bind}) => {a}, None => {o} }}"),
                };
                (text, false)
            }
            E::Guard(g, x, c, a, o) => {
                let mut used = BTreeSet::new();
                refs_e(o, &mut used);
                let last = if used.contains(g) { g.as_str() } else { "_" };
                (
                    format!(
                        "match {} {{ {g} if {g} > {} => {}, {last} => {} }}",
                        self.e(x).0,
                        self.lit(*c).0,
                        self.e(a).0,
                        self.e(o).0
                    ),
                    false,
                )
            }
            E::Match(arms) => {
                let mut s = "match k {".to_string();
                for (i, a) in arms.iter().enumerate() {
                    let pat = if i + 1 == arms.len() {
                        "_".to_string()
                    } else {
                        i.to_string()
                    };
                    write!(s, " {pat} => {},", self.e(a).0).unwrap();
                }
                (s + " }", false)
            }
            E::Shadow(u, x, y) => (
                format!(
                    "{{ let {u} = {}; let {u} = {u}.sin() * {} + {}; {u} }}",
                    self.e(x).0,
                    self.lit(0.5).0,
                    self.atom(y)
                ),
                false,
            ),
            E::CallU(k, args) => (self.ucall(*k, args), true),
            E::SumU(k, args) if self.dual => (
                format!("{{ let s = {}; s[0] + s[1] + s[2] }}", self.ucall(*k, args)),
                false,
            ),
            E::SumU(k, args) => (
                format!("{}.iter().sum::<{}>()", self.ucall(*k, args), self.t()),
                true,
            ),
            E::Pack(array, es) => {
                let es: Vec<String> = es.iter().map(|e| self.e(e).0).collect();
                if *array {
                    (format!("[{}]", es.join(", ")), true)
                } else {
                    (format!("({})", es.join(", ")), true)
                }
            }
            // a block: parenthesised as an operand or a receiver
            E::Chain(c) if self.dual => (self.chain_loop(c), false),
            // (a position scaled is a product: not one term)
            // (a chain written as a block, a pair's `fold` or a `collect`,
            // is no atom: `{ … } + x` at the start of a match arm or a
            // statement is a block and then a stray `+`)
            E::Chain(c) => {
                let s = self.chain(c);
                let atom = c.position.is_none() && !s.starts_with('{');
                (s, atom)
            }
            E::CallC(f, x) => (format!("{f}({})", self.e(x).0), true),
        }
    }
    /// An iterator chain, as a user writes it.
    /// A literal's pairs of constants: `(a, b), (c, d)`.
    fn pairs(&self, ps: &[(f64, f64)]) -> String {
        let ps: Vec<String> = ps
            .iter()
            .map(|(a, b)| format!("({}, {})", self.lit(*a).0, self.lit(*b).0))
            .collect();
        ps.join(", ")
    }

    fn chain(&self, c: &Chain) -> String {
        let t = self.t();
        let mut used = BTreeSet::new();
        refs_e(&c.map, &mut used);
        let name = |n: &str| {
            if used.contains(n) {
                n.to_string()
            } else {
                format!("_{n}")
            }
        };
        let mut s = match (&c.lit, c.chunks, &c.pairs) {
            (Some(es), _, _) => {
                let es: Vec<String> = es.iter().map(|e| self.e(e).0).collect();
                format!("[{}].iter()", es.join(", "))
            }
            (None, _, Some((ps, _))) => format!("[{}].iter()", self.pairs(ps)),
            (None, Some((form, k)), None) => {
                format!("{}.{}({k})", c.src, CHUNKS[form as usize])
            }
            (None, None, None) => match &c.join {
                Some(j) => format!("{}.iter().chain({j}.iter())", c.src),
                None => format!("{}.iter()", c.src),
            },
        };
        let mut pat = match (c.chunks, &c.pairs) {
            (Some(_), _) => name(&c.v),
            (None, None) if c.rows => name(&c.v),
            (None, Some((_, by_ref))) => {
                let amp = if *by_ref { "" } else { "&" };
                format!("{amp}({}, {})", name(&c.v), name(&c.w))
            }
            (None, None) => format!("&{}", name(&c.v)),
        };
        if let Some(z) = &c.zip {
            let skip = if c.zip_skip { ".skip(1)" } else { "" };
            match c.zip_nested {
                true => {
                    write!(s, ".zip({z}.iter(){skip}.zip({z}.iter()))").unwrap();
                    pat = format!("({pat}, (&{}, _))", name(&c.w));
                }
                false => {
                    write!(s, ".zip({z}.iter(){skip})").unwrap();
                    pat = format!("({pat}, &{})", name(&c.w));
                }
            }
        }
        if c.rev && !c.late_rev {
            s += ".rev()";
        }
        if c.skip > 0 {
            write!(s, ".skip({})", c.skip).unwrap();
        }
        if let Some(n) = c.take {
            write!(s, ".take({n})").unwrap();
        }
        if let Some(k) = c.step {
            write!(s, ".step_by({k})").unwrap();
        }
        if c.enumerate {
            s += ".enumerate()";
            pat = format!("({}, {pat})", name(&c.k));
        }
        if c.rev_after && !c.late_rev {
            s += ".rev()";
        }
        let by = if c.cut { "take_while" } else { "filter" };
        match c.filter {
            Some(f) if c.chunks.is_some() => {
                write!(s, ".{by}(|x| x[0] > {})", self.lit(f).0).unwrap()
            }
            Some(f) => write!(s, ".{by}(|x| **x > {})", self.lit(f).0).unwrap(),
            None => {}
        }
        match &c.pass {
            Some(f) => write!(s, ".copied().map({f})").unwrap(),
            None => match (&c.whole, &*c.map) {
                (Some(p), E::Bin('+', _, e)) => {
                    let pat = match c.enumerate {
                        true => format!("({}, {p})", name(&c.k)),
                        false => p.clone(),
                    };
                    write!(s, ".map(|{pat}| (*{p}.0) * (*{p}.1) + {})", self.atom(e)).unwrap()
                }
                _ => write!(s, ".map(|{pat}| {})", self.e(&c.map).0).unwrap(),
            },
        }
        if c.late_rev && (c.rev || c.rev_after) {
            s += ".rev()";
        }
        match c.kept {
            Some((f, true)) => write!(s, ".filter(|m| *m > {})", self.lit(f).0).unwrap(),
            Some((f, false)) => write!(s, ".filter(|&m| m > {})", self.lit(f).0).unwrap(),
            None => {}
        }
        if let Some(at) = c.position {
            return format!(
                "{s}.position(|m| m > {}).unwrap_or(7) as {t} * {}",
                self.lit(at).0,
                self.lit(0.25).0
            );
        }
        let ending = match c.or {
            Some(d) if d == 0.0 && !self.generic => ".unwrap_or_default()".to_string(),
            Some(d) => format!(".unwrap_or({})", self.lit(d).0),
            None if c.expect => ".expect(\"an element\")".to_string(),
            None => ".unwrap()".to_string(),
        };
        match &c.consume {
            Consume::Sum => write!(s, ".sum::<{t}>()").unwrap(),
            Consume::Product => write!(s, ".product::<{t}>()").unwrap(),
            Consume::Fold(init) if c.pair => {
                s = format!(
                    "{{ let (pa_{v}, pb_{v}) = {s}.fold(({}, {}), |(acc, acc2), x| (acc * {} + x, acc2 + x * x)); pa_{v} + pb_{v} * {} }}",
                    self.e(init).0,
                    self.lit(0.0).0,
                    self.lit(0.5).0,
                    self.lit(0.25).0,
                    v = c.v
                )
            }
            Consume::Fold(init) => write!(
                s,
                ".fold({}, |acc, x| acc * {} + x)",
                self.e(init).0,
                self.lit(0.5).0
            )
            .unwrap(),
            Consume::Max if self.generic => write!(s, ".fold(T::neg_infinity(), T::max)").unwrap(),
            Consume::Max => write!(s, ".fold({t}::NEG_INFINITY, {t}::max)").unwrap(),
            // (`total_cmp` is not `Float`'s)
            Consume::Min if self.generic => {
                write!(s, ".min_by(|a, b| a.partial_cmp(b).unwrap()){ending}").unwrap()
            }
            Consume::Min => write!(s, ".min_by(|a, b| a.total_cmp(b)){ending}").unwrap(),
            Consume::Reduce(0) => write!(
                s,
                ".reduce(|a, b| a * {} + b){ending}",
                self.lit(0.5).0
            )
            .unwrap(),
            Consume::Reduce(1) => write!(s, ".reduce({t}::max){ending}").unwrap(),
            Consume::Reduce(_) => write!(s, ".fold(0.0, {t}::max)").unwrap(),
            Consume::Collect => {
                s = format!(
                    "{{ let c_{v}: Vec<{t}> = {s}.collect(); c_{v}[c_{v}.len() - 1] * {} + c_{v}[0] }}",
                    self.lit(0.5).0,
                    v = c.v
                )
            }
        }
        s
    }
    /// An iterator chain for the dual numbers: the loop it is.
    fn chain_loop(&self, c: &Chain) -> String {
        let mut used = BTreeSet::new();
        refs_e(&c.map, &mut used);
        let name = |n: &str| {
            if used.contains(n) {
                n.to_string()
            } else {
                format!("_{n}")
            }
        };
        let (acc, i) = (format!("acc_{}", c.v), format!("i_{}", c.v));
        let (src, bind) = match (&c.lit, &c.pairs) {
            (Some(es), _) => {
                let es: Vec<String> = es.iter().map(|e| self.e(e).0).collect();
                let src = format!("lit_{}", c.v);
                let bind = format!("let {src} = [{}]; ", es.join(", "));
                (src, bind)
            }
            (None, Some((ps, _))) => {
                let src = format!("lit_{}", c.v);
                let bind = format!("let {src} = [{}]; ", self.pairs(ps));
                (src, bind)
            }
            (None, None) => (c.src.clone(), String::new()),
        };
        // (over the source and the array chained after it)
        let whole = match &c.join {
            Some(j) => format!("({src}.len() + {j}.len())"),
            None => format!("{src}.len()"),
        };
        let len = match &c.zip {
            Some(z) if c.zip_skip => format!("{whole}.min({z}.len().saturating_sub(1))"),
            Some(z) => format!("{whole}.min({z}.len())"),
            None => whole,
        };
        let mut range = match c.chunks {
            Some((form, k)) => format!("{src}.{}({k})", CHUNKS[form as usize]),
            None => format!("(0..{len})"),
        };
        if c.rev {
            range += ".rev()";
        }
        if c.skip > 0 {
            write!(range, ".skip({})", c.skip).unwrap();
        }
        if let Some(n) = c.take {
            write!(range, ".take({n})").unwrap();
        }
        if let Some(k) = c.step {
            write!(range, ".step_by({k})").unwrap();
        }
        range += ".enumerate()";
        if c.rev_after {
            range += ".rev()";
        }
        let float = if self.f32 { "f32" } else { "f64" };
        let (init, combine) = match &c.consume {
            // std's float sum starts at -0.0 (an empty sum is -0.0)
            Consume::Sum => (self.cst("-0.0"), format!("{acc} + x")),
            Consume::Product => (self.cst("1.0"), format!("{acc} * x")),
            Consume::Fold(init) => (self.e(init).0, format!("{acc} * {} + x", self.cst("0.5"))),
            Consume::Max => (
                self.cst(&format!("{float}::NEG_INFINITY")),
                format!("{acc}.max(x)"),
            ),
            Consume::Min if c.or.is_some() => (
                self.cst(&format!("{float}::INFINITY")),
                format!("{{ {acc}_f = false; {acc}.min(x) }}"),
            ),
            Consume::Min => (
                self.cst(&format!("{float}::INFINITY")),
                format!("{acc}.min(x)"),
            ),
            // the first element, then the function of the two
            Consume::Reduce(k @ (0 | 1)) => {
                let f = if *k == 0 {
                    format!("{acc} * {} + x", self.cst("0.5"))
                } else {
                    format!("{acc}.max(x)")
                };
                (
                    self.cst("0.0"),
                    format!("if {acc}_f {{ {acc}_f = false; x }} else {{ {f} }}"),
                )
            }
            Consume::Reduce(_) => (self.cst("0.0"), format!("{acc}.max(x)")),
            Consume::Collect => ("Vec::new()".to_string(), String::new()),
        };
        let bind = match &c.consume {
            Consume::Reduce(0 | 1) => format!("{bind}let mut {acc}_f = true; "),
            Consume::Min if c.or.is_some() => format!("{bind}let mut {acc}_f = true; "),
            Consume::Fold(_) if c.pair => format!("{bind}let mut {acc}2 = {}; ", self.cst("0.0")),
            _ if c.position.is_some() => {
                format!("{bind}let mut {acc}_p: Option<usize> = None; ")
            }
            _ => bind,
        };
        let v = if c.pass.is_some() || c.filter.is_some() {
            c.v.clone()
        } else {
            name(&c.v)
        };
        // a chunk is the element itself; else the element at `i`
        let each = if c.chunks.is_some() { &v } else { &i };
        // (a position keeps its own accumulator)
        let declared = match c.position {
            Some(_) => String::new(),
            None => format!("let mut {acc} = {init}; "),
        };
        let mut s = format!(
            "{{ {bind}{declared}for ({}, {each}) in {range} {{ ",
            name(&c.k)
        );
        match &c.pairs {
            // the pattern as the closure's, of a reference to the pair
            Some((_, by_ref)) => {
                let amp = if *by_ref { "" } else { "&" };
                let (v, w) = (name(&c.v), name(&c.w));
                write!(s, "let {amp}({v}, {w}) = &{src}[{i}]; ").unwrap();
            }
            None if c.chunks.is_none() => match &c.join {
                Some(j) => write!(
                    s,
                    "let {v} = if {i} < {src}.len() {{ {src}[{i}] }} else {{ {j}[{i} - {src}.len()] }}; "
                )
                .unwrap(),
                None if c.rows => write!(s, "let {v} = &{src}[{i}]; ").unwrap(),
                None => write!(s, "let {v} = {src}[{i}]; ").unwrap(),
            },
            None => {}
        }
        if let Some(z) = &c.zip {
            let at = if c.zip_skip { " + 1" } else { "" };
            write!(s, "let {} = {z}[{i}{at}]; ", name(&c.w)).unwrap();
        }
        if let Some(f) = c.filter {
            let first = if c.chunks.is_some() { "[0]" } else { "" };
            // (a `take_while` ends the walk)
            let out = if c.cut { "break" } else { "continue" };
            write!(
                s,
                "if !gt{}({}{first}, {}) {{ {out}; }} ",
                self.sfx(),
                c.v,
                self.cst(&format!("{f:?}"))
            )
            .unwrap();
        }
        write!(s, "let x = {}; ", self.e(&c.map).0).unwrap();
        if let Some((f, _)) = c.kept {
            write!(
                s,
                "if !gt{}(x, {}) {{ continue; }} ",
                self.sfx(),
                self.cst(&format!("{f:?}"))
            )
            .unwrap();
        }
        if c.pair {
            write!(
                s,
                "{acc} = {combine}; {acc}2 = {acc}2 + x * x; }} {acc} + {acc}2 * {} }}",
                self.cst("0.25")
            )
            .unwrap();
            return s;
        }
        if let Some(at) = c.position {
            let float = if self.f32 { "f32" } else { "f64" };
            write!(
                s,
                "if gt{sfx}(x, {}) {{ {acc}_p = Some({}); break; }} }} cst{sfx}(({acc}_p.unwrap_or(7) as {float}) * 0.25) }}",
                self.cst(&format!("{at:?}")),
                name(&c.k),
                sfx = self.sfx()
            )
            .unwrap();
            return s;
        }
        if matches!(c.consume, Consume::Collect) {
            write!(
                s,
                "{acc}.push(x); }} {acc}[{acc}.len() - 1] * {} + {acc}[0] }}",
                self.cst("0.5")
            )
            .unwrap();
            return s;
        }
        match c.or {
            // an empty chain's `Option` is `None`: the default
            Some(d) => write!(
                s,
                "{acc} = {combine}; }} if {acc}_f {{ {} }} else {{ {acc} }} }}",
                self.cst(&format!("{d:?}"))
            )
            .unwrap(),
            None => write!(s, "{acc} = {combine}; }} {acc} }}").unwrap(),
        }
        s
    }
    /// A call to block helper `u{k}`.
    fn ucall(&self, k: usize, args: &[Arg]) -> String {
        let d = if self.dual { "_d" } else { "" };
        let args: Vec<String> = args.iter().map(|a| self.arg(a)).collect();
        format!("p{}_u{k}{d}({})", self.id, args.join(", "))
    }
    /// An argument of a call to a block helper, as its parameter takes it.
    fn arg(&self, a: &Arg) -> String {
        match a {
            Arg::S(e) => self.e(e).0,
            Arg::L(to, es) => {
                let es: Vec<String> = es.iter().map(|e| self.e(e).0).collect();
                let amp = if *to == PKind::Arr { "" } else { "&" };
                format!("{amp}[{}]", es.join(", "))
            }
            Arg::A {
                name,
                src,
                to,
                amp,
                range,
            } => {
                let src = if self.dual { src.1 } else { src.0 };
                let m = if is_out(to) { "&mut " } else { "&" };
                if let Some((lo, hi)) = range {
                    return format!("{m}{name}[{lo}..{hi}]");
                }
                match (to, src) {
                    (PKind::Out | PKind::OutSlice(_), _) => format!("&mut {name}"),
                    (PKind::Arr, Src::Ref) => format!("*{name}"),
                    (PKind::Arr, _) => name.clone(),
                    // (`&&[f64; N]` does not coerce to `&[f64]`)
                    (PKind::Slice(_), Src::Ref) => name.clone(),
                    (_, Src::Ref | Src::SliceRef) if *amp => format!("&{name}"),
                    (_, Src::Ref | Src::SliceRef) => name.clone(),
                    _ => format!("&{name}"),
                }
            }
        }
    }
    fn c(&self, c: &Cond) -> String {
        if let Some(Test::Sign) = &c.test {
            // (the dual numbers note the value as a comparison's margin)
            return match self.dual {
                true => format!(
                    "{{ let a = {}; note(a.v as f64); a.v.is_sign_negative() }}",
                    self.e(&c.a).0
                ),
                false => format!("({}).is_sign_negative()", self.e(&c.a).0),
            };
        }
        if let Some(Test::Any(w, all, at)) = &c.test {
            let which = if *all { "all" } else { "any" };
            let test = if self.dual {
                format!("gt{}(val, {})", self.sfx(), self.cst(&format!("{at:?}")))
            } else {
                format!("val > {}", self.lit(*at).0)
            };
            return format!("{w}.iter().{which}(|&val| {test})");
        }
        if self.dual {
            let f = if c.gt { "gt" } else { "lt" };
            format!("{f}{}({}, {})", self.sfx(), self.e(&c.a).0, self.e(&c.b).0)
        } else {
            let op = if c.gt { ">" } else { "<" };
            format!("{} {op} {}", self.atom(&c.a), self.atom(&c.b))
        }
    }
    fn mutk(&self, n: &str) -> &'static str {
        if self.assigned.contains(n) {
            "mut "
        } else {
            ""
        }
    }
    fn block(&self, body: &[S], ind: usize, out: &mut String) {
        for s in body {
            self.s(s, ind, out);
        }
    }
    fn s(&self, s: &S, ind: usize, o: &mut String) {
        let pad = "    ".repeat(ind);
        match s {
            S::Let(n, e) => writeln!(
                o,
                "{pad}let {}{} = {};",
                self.mutk(n),
                self.n(n),
                self.e(e).0
            )
            .unwrap(),
            S::LetClosure(f, x, e) => writeln!(
                o,
                "{pad}let {} = |{x}: {}| {};",
                self.n(f),
                self.t(),
                self.e(e).0
            )
            .unwrap(),
            S::Assign(n, op, e) => writeln!(o, "{pad}{n} {op} {};", self.e(e).0).unwrap(),
            S::SetArrFirst(n, ix, op, e) => {
                let place = self.ix(n, ix, Some(3));
                self.assign_first(o, &pad, &place, op, e);
            }
            S::AssignFirst(n, op, e) => self.assign_first(o, &pad, n, op, e),
            S::SetArrMoved(n, len, start, op, e) => {
                self.moved_write(o, &pad, n, (*len, *start), op, e)
            }
            S::LetArr(n, len, init) => {
                let v = match init {
                    None => format!("[{}; {len}]", self.lit(0.0).0),
                    Some(el) => {
                        let el: Vec<String> = el.iter().map(|e| self.e(e).0).collect();
                        format!("[{}]", el.join(", "))
                    }
                };
                writeln!(o, "{pad}let {}{} = {v};", self.mutk(n), self.n(n)).unwrap()
            }
            S::LetVec(n, el) => {
                let el: Vec<String> = el.iter().map(|e| self.e(e).0).collect();
                writeln!(o, "{pad}let {} = vec![{}];", self.n(n), el.join(", ")).unwrap()
            }
            S::Made(n, src, v, e, false) => {
                let body = self.e(e).0;
                writeln!(o, "{pad}let {} = {src}.map(|{v}| {body});", self.n(n)).unwrap()
            }
            S::Made(n, _, v, e, true) => {
                let (body, t) = (self.e(e).0, self.t());
                writeln!(
                    o,
                    "{pad}let {}: [{t}; 3] = std::array::from_fn(|{v}| {body});",
                    self.n(n)
                )
                .unwrap()
            }
            S::LetMat(n, len, rows, block) => {
                let first = format!("{n}_l");
                let v = match rows {
                    None => format!("[[{}; {len}]; {len}]", self.lit(0.0).0),
                    Some(rows) => {
                        let rows: Vec<String> = rows
                            .iter()
                            .enumerate()
                            .map(|(i, row)| {
                                let row: Vec<String> = row
                                    .iter()
                                    .enumerate()
                                    .map(|(j, e)| match (i, j + 1 == *len, block) {
                                        (0, true, true) => first.clone(),
                                        _ => self.e(e).0,
                                    })
                                    .collect();
                                format!("[{}]", row.join(", "))
                            })
                            .collect();
                        format!("[{}]", rows.join(", "))
                    }
                };
                let v = match (rows, block) {
                    (Some(rows), true) => format!(
                        "{{ let {first}: {} = {}; {v} }}",
                        self.t(),
                        self.e(&rows[0][len - 1]).0
                    ),
                    _ => v,
                };
                writeln!(o, "{pad}let {}{} = {v};", self.mutk(n), self.n(n)).unwrap()
            }
            S::SetMat(n, ix, jx, len, op, e) => {
                // the place as a read of it prints
                let place = E::Index2(n.clone(), ix.clone(), *len, jx.clone(), *len);
                writeln!(o, "{pad}{} {op} {};", self.e(&place).0, self.e(e).0).unwrap()
            }
            S::LetScratch(n, e, i) => writeln!(
                o,
                "{pad}let {}{} = vec![{}; 3 + {i} % 2];",
                self.mutk(n),
                self.n(n),
                self.e(e).0
            )
            .unwrap(),
            S::LetFill(n, e, vec, _) => {
                let (open, close) = if *vec { ("vec![", "]") } else { ("[", "]") };
                let e = e.as_ref().map_or_else(|| self.lit(0.0).0, |e| self.e(e).0);
                writeln!(
                    o,
                    "{pad}let {}{} = {open}{e}; 3{close};",
                    self.mutk(n),
                    self.n(n),
                )
                .unwrap()
            }
            S::SetArr(n, ix, op, e) => {
                writeln!(o, "{pad}{} {op} {};", self.ix(n, ix, Some(3)), self.e(e).0).unwrap()
            }
            S::Pushed(n, k, e, form, _) => {
                let (h, e) = (self.n(n), self.e(e).0);
                let (start, head) = match form {
                    0 => ("Vec::new()", format!("for {k} in 0..3usize {{")),
                    1 => (
                        "Vec::with_capacity(3)",
                        format!("for {k} in (0..3).rev() {{"),
                    ),
                    2 => (
                        "vec![]",
                        format!("for {k}_o in 0..2 {{ for {k} in {k}_o..2 {{"),
                    ),
                    3 => ("Vec::new()", format!("for ({k}, _) in (0..3).zip(0..3) {{")),
                    6 => ("Vec::with_capacity(3)", "for _ in 0..3 {".to_string()),
                    7 => (
                        "Vec::new()",
                        format!("for {k} in 0..6usize {{ if {k} >= 3 {{ break; }}"),
                    ),
                    8 => (
                        "Vec::new()",
                        format!(
                            "for {k}c in 0..6usize {{ if {k}c % 2 == 1 {{ continue; }} let {k} = {k}c / 2;"
                        ),
                    ),
                    10 => (
                        "Vec::with_capacity(3)",
                        format!("for {k} in 0..5usize {{ if {h}.len() < 3 {{"),
                    ),
                    11 => {
                        let above = if self.dual {
                            format!("gt{}({e}, {})", self.sfx(), self.cst("0.25"))
                        } else {
                            format!("{e} > {}", self.lit(0.25).0)
                        };
                        (
                            "vec![]",
                            format!("for {k} in 0..4usize {{ if {h}.len() < 3 && ({k} != 1 || {above}) {{"),
                        )
                    }
                    // the index shadowed before the push: it no longer
                    // counts the pushes
                    _ => (
                        "Vec::new()",
                        format!("for {k} in 0..3usize {{ let {k} = 2 - {k};"),
                    ),
                };
                writeln!(o, "{pad}let mut {h} = {start};").unwrap();
                if *form == 5 {
                    // three pushes in one iteration, `k` bound before each
                    let pushes: Vec<String> = (0..3)
                        .map(|j| format!("let {k} = {j}; {h}.push({e});"))
                        .collect();
                    // (the loop's index named, and a `usize`: a push by
                    // it would write one element three times)
                    writeln!(o, "{pad}for _{k}o in 0..1usize {{ {} }}", pushes.join(" ")).unwrap();
                    return;
                }
                if *form == 9 {
                    writeln!(
                        o,
                        "{pad}for {k} in 0..3usize {{ match {k} {{ 1 => {h}.push({e}), _ => {{ {h}.push({e}); }} }} }}"
                    )
                    .unwrap();
                    return;
                }
                let close = if matches!(form, 2 | 10 | 11) {
                    "} }"
                } else {
                    "}"
                };
                // (the push ending the loop's block without its `;` in
                // forms 6 and 7, as rustfmt leaves it)
                let semi = if matches!(form, 6 | 7) { "" } else { ";" };
                writeln!(o, "{pad}{head} {h}.push({e}){semi} {close}").unwrap()
            }
            S::Regrow(h, i, e) => {
                let (h, i, zero, half) = (self.n(h), self.n(i), self.lit(0.0).0, self.lit(0.5).0);
                let g = format!("{h}_g");
                writeln!(o, "{pad}{{").unwrap();
                writeln!(o, "{pad}    let mut {g} = vec![{zero}; 3 + {i} % 3];").unwrap();
                writeln!(o, "{pad}    {g}[0] = {h}[1] * {half} + {};", self.e(e).0).unwrap();
                writeln!(o, "{pad}    {g}[1] = {h}[2];\n{pad}    {g}[2] = {h}[0];").unwrap();
                writeln!(o, "{pad}    {h} = {g};").unwrap();
                // back to three elements, the last read first: the code
                // after reads (and zips) `h` as three long
                writeln!(o, "{pad}    let mut {g}3 = vec![{zero}; 3];").unwrap();
                writeln!(o, "{pad}    {g}3[0] = {h}[0];\n{pad}    {g}3[1] = {h}[1];").unwrap();
                writeln!(
                    o,
                    "{pad}    {g}3[2] = {h}[2] + {h}[{h}.len() - 1] * {half};"
                )
                .unwrap();
                writeln!(o, "{pad}    {h} = {g}3;\n{pad}}}").unwrap();
            }
            S::LetTuple(p, q, x, y, false) => writeln!(
                o,
                "{pad}let ({}, {}) = ({}, {});",
                self.n(p),
                self.n(q),
                self.e(x).0,
                self.e(y).0
            )
            .unwrap(),
            S::LetTuple(p, q, x, y, true) => {
                let (p, q, x, y) = (self.n(p), self.n(q), self.e(x).0, self.e(y).0);
                let t = format!("{p}{q}t");
                let above = match self.dual {
                    true => format!("gt{}({x}, {})", self.sfx(), self.cst("0.25")),
                    false => format!("{x} > {}", self.lit(0.25).0),
                };
                let half = self.lit(0.5).0;
                writeln!(o, "{pad}let mut {t} = ({x}, {y});").unwrap();
                writeln!(o, "{pad}if {above} {{ {t} = ({y} * {half}, {x}); }}").unwrap();
                writeln!(o, "{pad}let ({p}, {q}) = {t};").unwrap();
            }
            S::View(v, w, lo, hi, by, form) => {
                let (lo, hi) = match by {
                    Some(i) => (format!("{i} + {lo}"), format!("{i} + {hi}")),
                    None => (lo.to_string(), hi.to_string()),
                };
                let (m, v) = (self.mutk(v), self.n(v));
                match form {
                    View::Ref => writeln!(o, "{pad}let {v} = &{w}[{lo}..{hi}];"),
                    View::Copy => {
                        writeln!(o, "{pad}let {m}{v} = {w}[{lo}..{hi}].to_vec();")
                    }
                    View::Head => writeln!(o, "{pad}let ({v}, _) = {w}.split_at({hi});"),
                    View::Tail => writeln!(o, "{pad}let (_, {v}) = {w}.split_at({lo});"),
                }
                .unwrap()
            }
            S::Recopy(h, w, lo, hi, by, whole) => {
                let (lo, hi) = match by {
                    Some(i) => (format!("{i} + {lo}"), format!("{i} + {hi}")),
                    None => (lo.to_string(), hi.to_string()),
                };
                let copy = match whole {
                    3 => {
                        writeln!(o, "{pad}{h}.clone_from(&{w});").unwrap();
                        return;
                    }
                    2 => format!("{w}.clone()"),
                    1 => format!("{w}.to_vec()"),
                    _ => format!("{w}[{lo}..{hi}].to_vec()"),
                };
                writeln!(o, "{pad}{h} = {copy};").unwrap()
            }
            S::Sorted(w, len, m, c) => {
                let (keys, order) = (format!("{w}_keys"), format!("{w}_order"));
                // (the dual numbers' keys are their values)
                let (key_ty, detached) = match self.dual {
                    true => (if self.f32 { "f32" } else { "f64" }, "v.v"),
                    false => (self.t(), "mica::detach(*v)"),
                };
                let (c, half) = (self.lit(*c).0, self.lit(0.5).0);
                writeln!(o, "{pad}{{").unwrap();
                writeln!(
                    o,
                    "{pad}    let {keys}: Vec<{key_ty}> = {w}.iter().map(|v| {detached}).collect();"
                )
                .unwrap();
                writeln!(
                    o,
                    "{pad}    let mut {order}: Vec<usize> = (0..{w}.len()).collect();"
                )
                .unwrap();
                writeln!(
                    o,
                    "{pad}    {order}.sort_by(|&a, &b| {keys}[a].partial_cmp(&{keys}[b]).unwrap());"
                )
                .unwrap();
                writeln!(
                    o,
                    "{pad}    {m} += {w}[{order}[0]] * {c} + {w}[{order}[{}]].sin() * {half};",
                    len - 1
                )
                .unwrap();
                writeln!(o, "{pad}}}").unwrap();
            }
            S::IfGet(_, w, k, 3, m, _, other) => {
                let other = self.e(other).0;
                // in a third of the programs each, by the program and `k`,
                // `last()` or `first()` in place of `get(k)`
                let get = match (self.id + k) % 3 {
                    1 => "last()".to_string(),
                    2 => "first()".to_string(),
                    _ => format!("get({k})"),
                };
                writeln!(
                    o,
                    "{pad}{m} += {w}.{get}.copied().unwrap_or({other}).tanh() * {};",
                    self.lit(0.1).0
                )
                .unwrap();
            }
            S::IfGet(r, w, k, form, m, then, other) => {
                let (pat, copied) = match form {
                    0 | 4 | 6 => (self.n(r), ""),
                    1 | 5 => (format!("&{}", self.n(r)), ""),
                    _ => (self.n(r), ".copied()"),
                };
                let get = match form {
                    4 => format!("get({k}..{})", k + 2),
                    5 => "last()".to_string(),
                    6 => "first()".to_string(),
                    _ => format!("get({k})"),
                };
                let (then, other) = (self.e(then).0, self.e(other).0);
                // a third as a `match` on the `Option`, its arms in either
                // order, `None` or a last `_` (chosen by the program and the
                // name, the same in every rendering of it)
                let h = r
                    .bytes()
                    .fold(self.id, |h, c| h.wrapping_mul(31) ^ c as usize);
                if h % 3 == 0 {
                    // (`_` only last: first, it leaves the other arm
                    // unreachable)
                    let some = format!("Some({pat}) => {m} += {then},");
                    let none = |p: &str| format!("{p} => {m} += {other},");
                    let (one, two) = match h / 3 % 3 {
                        0 => (some, none("None")),
                        1 => (some, none("_")),
                        _ => (none("None"), some),
                    };
                    writeln!(o, "{pad}match {w}.{get}{copied} {{").unwrap();
                    writeln!(o, "{pad}    {one}").unwrap();
                    writeln!(o, "{pad}    {two}").unwrap();
                    writeln!(o, "{pad}}}").unwrap();
                    return;
                }
                writeln!(o, "{pad}if let Some({pat}) = {w}.{get}{copied} {{").unwrap();
                writeln!(o, "{pad}    {m} += {then};").unwrap();
                writeln!(o, "{pad}}} else {{").unwrap();
                writeln!(o, "{pad}    {m} += {other};").unwrap();
                writeln!(o, "{pad}}}").unwrap();
            }
            S::RefElem(r, w, k) => writeln!(o, "{pad}let {} = &{w}[{k}];", self.n(r)).unwrap(),
            S::Cursor(k, r, w, m, a, c) => {
                let (a, c) = (self.lit(*a).0, self.lit(*c).0);
                let tenth = self.lit(0.1).0;
                writeln!(o, "{pad}let mut {k} = 0usize;").unwrap();
                writeln!(o, "{pad}let {r} = &mut {k};").unwrap();
                writeln!(o, "{pad}{m} += ({w}[*{r}] * {a}).tanh() * {tenth};").unwrap();
                writeln!(o, "{pad}*{r} += 1;").unwrap();
                writeln!(o, "{pad}{m} += ({w}[*{r}] * {c}).tanh() * {tenth};").unwrap();
            }
            S::LetBorrow(c, d) => writeln!(
                o,
                "{pad}let {}{}: &[{}] = &{d};",
                self.mutk(c),
                self.n(c),
                self.t()
            )
            .unwrap(),
            S::Rebind(c, w, src) => {
                let src = if self.dual { src.1 } else { src.0 };
                let amp = if matches!(src, Src::Ref | Src::SliceRef) {
                    ""
                } else {
                    "&"
                };
                writeln!(o, "{pad}{c} = {amp}{w};").unwrap()
            }
            S::SwapVecs(c, r, form) => match form {
                0 => writeln!(o, "{pad}({c}, {r}) = ({r}, {c});").unwrap(),
                1 => {
                    writeln!(o, "{pad}let ({c}_p, {c}_q) = ({r}, {c});").unwrap();
                    writeln!(o, "{pad}{c} = {c}_p;").unwrap();
                    writeln!(o, "{pad}{r} = {c}_q;").unwrap();
                }
                _ => writeln!(o, "{pad}std::mem::swap(&mut {c}, &mut {r});").unwrap(),
            },
            S::Unpack(names, h, by_ref) => {
                let names: Vec<String> = names
                    .iter()
                    .map(|n| n.as_ref().map_or("_".to_string(), |n| self.n(n)))
                    .collect();
                let deref = if self.dual { by_ref.1 } else { by_ref.0 };
                let star = if deref { "*" } else { "" };
                writeln!(o, "{pad}let [{}] = {star}{h};", names.join(", ")).unwrap()
            }
            S::MutEach(v, h, op, e, j, each, partner) => {
                let (item, walked) = match partner {
                    Some(by_ref) => {
                        writeln!(o, "{pad}let mut {h}z = {h};").unwrap();
                        let g = if *by_ref {
                            format!("&mut {h}z")
                        } else {
                            format!("{h}z.iter_mut()")
                        };
                        (format!("({v}, {v}z)"), format!("{h}.iter_mut().zip({g})"))
                    }
                    None => (v.clone(), format!("{h}.iter_mut()")),
                };
                let (pat, chain) = match j {
                    Some(j) => (
                        format!("({}, {item})", self.n(j)),
                        format!("{walked}.enumerate()"),
                    ),
                    None => (item, walked),
                };
                if *each {
                    writeln!(
                        o,
                        "{pad}{chain}.for_each(|{pat}| *{v} {op} {});",
                        self.e(e).0
                    )
                    .unwrap();
                } else {
                    writeln!(o, "{pad}for {pat} in {chain} {{").unwrap();
                    writeln!(o, "{pad}    *{v} {op} {};", self.e(e).0).unwrap();
                    let half = self.lit(0.5).0;
                    if partner.is_some() {
                        writeln!(o, "{pad}    *{v}z += *{v} * {half};").unwrap();
                    }
                    writeln!(o, "{pad}}}").unwrap();
                    if partner.is_some() {
                        writeln!(o, "{pad}{h}[0] += {h}z[1] * {half};").unwrap();
                    }
                }
            }
            S::For(For::Iter(a, arr, true), body) => {
                writeln!(o, "{pad}{arr}.iter().for_each(|{}| {{", self.n(a)).unwrap();
                self.block(body, ind + 1, o);
                writeln!(o, "{pad}}});").unwrap();
            }
            S::For(f, body) => {
                let head = match f {
                    For::Range(i, n) => match self.bound(i, *n) {
                        // a literal end, in a third of them inclusive
                        b if !b.starts_with('K')
                            && *n >= 1
                            && (self.id + i.len()).is_multiple_of(3) =>
                        {
                            format!("{} in 0..={}", self.counter(i), n - 1)
                        }
                        // and in a fifth of the rest typed (`0..3usize`)
                        b if !b.starts_with('K') && (self.id + 2 * i.len()).is_multiple_of(5) => {
                            format!("{} in 0..{b}usize", self.counter(i))
                        }
                        b => format!("{} in 0..{b}", self.counter(i)),
                    },
                    For::Span(i, lo, hi) => {
                        format!("{} in {lo}..{}", self.n(i), self.bound(i, *hi))
                    }
                    For::Named(i, lo, hi) => format!("{} in {lo}..K{hi}", self.n(i)),
                    // rarer: a named bound in a quarter of them
                    For::Back(i, lo, hi) => {
                        let hi = match self.bound(&format!("{i}{i}"), *hi) {
                            b if b.starts_with('K') => self.bound(i, *hi),
                            _ => hi.to_string(),
                        };
                        format!("{} in ({lo}..{hi}).rev()", self.n(i))
                    }
                    For::Tail(j, i) => format!("{} in {} + 1..3", self.n(j), self.n(i)),
                    For::Head(j, i) => format!("{} in 0..{}", self.n(j), self.n(i)),
                    For::Signed(k, lo, hi, true) => format!("{} in {lo}..={hi}", self.n(k)),
                    For::Signed(k, lo, hi, false) => format!("{} in {lo}..{}", self.n(k), hi + 1),
                    For::Iter(a, arr, _) => format!("{} in {arr}.iter()", self.n(a)),
                    For::Len(i, arr) => format!("{} in 0..{arr}.len()", self.n(i)),
                    For::Enum(j, a, arr) => {
                        format!("({}, {}) in {arr}.iter().enumerate()", self.n(j), self.n(a))
                    }
                    For::Zip(a, c, x, y) => {
                        format!(
                            "({}, {}) in {x}.iter().zip({y}.iter())",
                            self.n(a),
                            self.n(c)
                        )
                    }
                    For::Chunks(c, w, form, k, j) => {
                        let split = ["chunks_exact", "windows", "chunks"][*form as usize];
                        match j {
                            Some(j) => format!(
                                "({}, {}) in {w}.{split}({k}).enumerate()",
                                self.n(j),
                                self.n(c)
                            ),
                            None => format!("{} in {w}.{split}({k})", self.n(c)),
                        }
                    }
                };
                let label = label_of(f);
                let label = if uses_label(body, &label) {
                    format!("'{label}: ")
                } else {
                    String::new()
                };
                writeln!(o, "{pad}{label}for {head} {{").unwrap();
                self.block(body, ind + 1, o);
                writeln!(o, "{pad}}}").unwrap();
            }
            S::While(i, n, c, body, form) => {
                let extra = match c {
                    Some(c) => format!(" && {}", self.c(c)),
                    None => String::new(),
                };
                let label = format!("l{i}");
                let label = if uses_label(body, &label) {
                    format!("'{label}: ")
                } else {
                    String::new()
                };
                writeln!(o, "{pad}let mut {i} = 0;").unwrap();
                match form {
                    1 => {
                        writeln!(o, "{pad}{label}loop {{").unwrap();
                        writeln!(o, "{pad}    if !({i} < {n}{extra}) {{").unwrap();
                        writeln!(o, "{pad}        break;").unwrap();
                        writeln!(o, "{pad}    }}").unwrap();
                    }
                    2 => {
                        writeln!(
                            o,
                            "{pad}let mut {i}_queue: Vec<usize> = (0..{n}).collect();"
                        )
                        .unwrap();
                        writeln!(o, "{pad}{label}while let Some(_) = {i}_queue.pop() {{").unwrap();
                        writeln!(o, "{pad}    if !({i} < {n}{extra}) {{").unwrap();
                        writeln!(o, "{pad}        break;").unwrap();
                        writeln!(o, "{pad}    }}").unwrap();
                    }
                    _ => writeln!(o, "{pad}{label}while {i} < {n}{extra} {{").unwrap(),
                }
                self.block(body, ind + 1, o);
                writeln!(o, "{pad}    {i} += 1;").unwrap();
                writeln!(o, "{pad}}}").unwrap();
            }
            S::If(c, a, e) => {
                writeln!(o, "{pad}if {} {{", self.c(c)).unwrap();
                self.block(a, ind + 1, o);
                if !e.is_empty() {
                    writeln!(o, "{pad}}} else {{").unwrap();
                    self.block(e, ind + 1, o);
                }
                writeln!(o, "{pad}}}").unwrap();
            }
            S::Match(arms) => {
                writeln!(o, "{pad}match k {{").unwrap();
                for (i, a) in arms.iter().enumerate() {
                    let pat = if i + 1 == arms.len() {
                        "_".to_string()
                    } else {
                        i.to_string()
                    };
                    writeln!(o, "{pad}    {pat} => {{").unwrap();
                    self.block(a, ind + 2, o);
                    writeln!(o, "{pad}    }}").unwrap();
                }
                writeln!(o, "{pad}}}").unwrap();
            }
            S::Return(c, e) => {
                writeln!(o, "{pad}if {} {{", self.c(c)).unwrap();
                if matches!(e, E::Pack(false, es) if es.is_empty()) {
                    writeln!(o, "{pad}    return;").unwrap();
                } else {
                    writeln!(o, "{pad}    return {};", self.e(e).0).unwrap();
                }
                writeln!(o, "{pad}}}").unwrap();
            }
            S::Call(names, k, _, args) => {
                let call = self.ucall(*k, args);
                match names.len() {
                    0 => writeln!(o, "{pad}{call};").unwrap(),
                    1 => writeln!(o, "{pad}let {} = {call};", self.n(&names[0])).unwrap(),
                    _ => {
                        let ns: Vec<String> = names.iter().map(|n| self.n(n)).collect();
                        writeln!(o, "{pad}let ({}) = {call};", ns.join(", ")).unwrap()
                    }
                }
            }
            S::Exit(c, brk) => {
                let exit = if *brk { "break" } else { "continue" };
                writeln!(o, "{pad}if {} {{", self.c(c)).unwrap();
                writeln!(o, "{pad}    {exit};").unwrap();
                writeln!(o, "{pad}}}").unwrap();
            }
            S::Shadow(n, e, m) => {
                let (h, t) = (self.lit(0.5).0, self.lit(0.1).0);
                writeln!(o, "{pad}let {n} = {n} * {h} + {};", self.atom(e)).unwrap();
                writeln!(o, "{pad}{m} += {n}.tanh() * {t};").unwrap();
            }
            S::ShiftIdx(i, k) => writeln!(o, "{pad}let {i} = {i} + {k};").unwrap(),
            S::LetIdx(p, row, m, col) => {
                writeln!(o, "{pad}let {} = {row} * {m} + {col};", self.n(p)).unwrap()
            }
            S::ShadowLet(n, e) => writeln!(o, "{pad}let {} = {};", self.n(n), self.e(e).0).unwrap(),
            S::ExitTo(c, brk, label) => {
                let exit = if *brk { "break" } else { "continue" };
                writeln!(o, "{pad}if {} {{", self.c(c)).unwrap();
                writeln!(o, "{pad}    {exit} '{label};").unwrap();
                writeln!(o, "{pad}}}").unwrap();
            }
            S::Whole(h, op) => {
                let h = self.n(h);
                // an element read before and after a whole assignment, so
                // that no value assigned goes unread (rustc would warn)
                match op {
                    Whole::Assign(es) => {
                        let es: Vec<String> = es.iter().map(|e| self.e(e).0).collect();
                        writeln!(o, "{pad}let _ = {h}[0];").unwrap();
                        writeln!(o, "{pad}{h} = [{}];", es.join(", ")).unwrap();
                        writeln!(o, "{pad}let _ = {h}[0];").unwrap()
                    }
                    // the value first: it may read the array (which the
                    // fill borrows)
                    Whole::Fill(e) => {
                        writeln!(o, "{pad}let {h}_fill = {};", self.e(e).0).unwrap();
                        writeln!(o, "{pad}{h}.fill({h}_fill);").unwrap()
                    }
                    Whole::Swap(i, j) => writeln!(o, "{pad}{h}.swap({i}, {j});").unwrap(),
                    Whole::CopyFrom(g) => {
                        writeln!(o, "{pad}{h}.copy_from_slice(&{});", self.n(g)).unwrap()
                    }
                    Whole::MemSwap(g) => {
                        writeln!(o, "{pad}std::mem::swap(&mut {h}, &mut {});", self.n(g)).unwrap()
                    }
                }
            }
            S::SwapScalars(a, c) => writeln!(
                o,
                "{pad}std::mem::swap(&mut {}, &mut {});",
                self.n(a),
                self.n(c)
            )
            .unwrap(),
            S::LetIf(names, array, c, th, el) => {
                let render = |es: &[E]| -> String {
                    let es: Vec<String> = es.iter().map(|e| self.e(e).0).collect();
                    if *array {
                        format!("[{}]", es.join(", "))
                    } else {
                        format!("({})", es.join(", "))
                    }
                };
                let pat = if *array {
                    format!("{}{}", self.mutk(&names[0]), self.n(&names[0]))
                } else {
                    let ns: Vec<String> = names
                        .iter()
                        .map(|n| format!("{}{}", self.mutk(n), self.n(n)))
                        .collect();
                    format!("({})", ns.join(", "))
                };
                writeln!(
                    o,
                    "{pad}let {pat} = if {} {{ {} }} else {{ {} }};",
                    self.c(c),
                    render(th),
                    render(el)
                )
                .unwrap()
            }
            S::LoopValue(t, i, n, c, body, e, pair) => {
                writeln!(o, "{pad}let mut {i} = 0;").unwrap();
                let (m, t) = (self.mutk(t), self.n(t));
                match pair {
                    true => writeln!(o, "{pad}let ({t}a, {t}b) = loop {{").unwrap(),
                    false => writeln!(o, "{pad}let {m}{t} = loop {{").unwrap(),
                }
                self.block(body, ind + 1, o);
                writeln!(o, "{pad}    if {i} + 1 >= {n} || {} {{", self.c(c)).unwrap();
                let value = self.e(e).0;
                match pair {
                    true => writeln!(
                        o,
                        "{pad}        break ({value} * {}, {value} * {});",
                        self.lit(0.75).0,
                        self.lit(0.25).0
                    )
                    .unwrap(),
                    false => writeln!(o, "{pad}        break {value};").unwrap(),
                }
                writeln!(o, "{pad}    }}").unwrap();
                writeln!(o, "{pad}    {i} += 1;").unwrap();
                writeln!(o, "{pad}}};").unwrap();
                if *pair {
                    writeln!(o, "{pad}let {m}{t} = {t}a + {t}b;").unwrap();
                }
            }
        }
    }
}

/// The names the program's final value sums: every top-level scalar and the
/// first element of every top-level array, so that nothing is left unread.
fn outputs(p: &Program) -> Vec<E> {
    let mut out = outputs_of(&p.body);
    if out.is_empty() {
        out.push(E::Lit(0.5));
    }
    out
}

/// The top-level values of a body: scalars and first elements of arrays.
fn outputs_of(body: &[S]) -> Vec<E> {
    let mut out = Vec::new();
    for s in body {
        match s {
            S::Let(n, _) => out.push(E::Var(n.clone())),
            S::LetTuple(a, c, ..) => {
                out.push(E::Var(a.clone()));
                out.push(E::Var(c.clone()));
            }
            S::LetArr(n, _, _)
            | S::Made(n, ..)
            | S::LetVec(n, _)
            | S::LetFill(n, _, _, true)
            | S::Pushed(n, _, _, _, true) => out.push(E::Index(n.clone(), Ix::Const(0))),
            S::LetIf(names, true, ..) => out.push(E::Index(names[0].clone(), Ix::Const(1))),
            S::LetMat(n, len, ..) => {
                out.push(E::Index2(n.clone(), Ix::Const(0), *len, Ix::Const(0), *len))
            }
            S::LetIf(names, false, ..) => names.iter().for_each(|n| out.push(E::Var(n.clone()))),
            S::LoopValue(t, ..) => out.push(E::Var(t.clone())),
            S::Call(names, _, Ret::Arr, _) => out.push(E::Index(names[0].clone(), Ix::Const(0))),
            S::Call(names, ..) => names.iter().for_each(|n| out.push(E::Var(n.clone()))),
            _ => {}
        }
    }
    out
}

fn sum(es: &[E]) -> E {
    let mut it = es.iter().cloned();
    let first = it.next().unwrap();
    it.fold(first, |acc, e| E::Bin('+', b(acc), b(e)))
}

/// How a knob of this shape reads its first number: `""`, `"[0]"` or
/// `"[0][0]"`.
fn first_number(sh: &Shape) -> &'static str {
    match sh {
        Shape::Scalar => "",
        Shape::Arr(_) | Shape::Slice(_) => "[0]",
        Shape::Mat(..) => "[0][0]",
    }
}

/// Where a struct program's knob `n` lives in its struct `kn`: a field of
/// `P{id}K`, or, for the second half of an even number (at least two) of
/// knobs, of the nested struct `P{id}J` in its field `inner`.
///
/// For an odd number (at least three) of knobs, the last lives in the
/// second of two structs `P{id}E` held in the field `items` (a `Vec` for
/// an even `id`, an array for an odd one); the first is a decoy whose
/// slopes are zero.
///
/// A program of two knobs whose second is a scalar tracks a tuple of them
/// instead: its knobs are `kn.0` and `kn.1`.
fn field_path(p: &Program, n: &str) -> String {
    let k = p.knobs.len();
    let at = p.knobs.iter().position(|(m, _)| m == n).unwrap_or(0);
    if is_tuple(p) {
        at.to_string()
    } else if k >= 2 && k.is_multiple_of(2) && at >= k / 2 {
        format!("inner.{n}")
    } else if k >= 3 && !k.is_multiple_of(2) && at == k - 1 {
        format!("items[1].{n}")
    } else {
        n.to_string()
    }
}

/// The knobs a struct program's second function reads: its first and its
/// last (one, if there is one knob).
fn struct_callee_knobs(p: &Program) -> Vec<(String, Shape)> {
    let mut knobs = vec![p.knobs[0].clone()];
    if p.knobs.len() > 1 {
        knobs.push(p.knobs[p.knobs.len() - 1].clone());
    }
    knobs
}

/// A struct program's second function, which its function calls with the
/// struct whole (`p{id}_s(kn, cp)`, or the method `kn.s(cp)` of
/// [`is_method_callee`]): `(a * c).sin() * 0.5 + b` of the
/// first element of its first and last knobs; and the same with one
/// parameter per knob, for the plain adjoint (`_s_q`) and the dual
/// numbers (`_s_d`).
fn render_struct_callee(o: &mut String, p: &Program, id: usize) {
    let knobs = struct_callee_knobs(p);
    let first = first_number;
    let (ft, sfx) = if p.f32 { ("f32", "32") } else { ("f64", "") };
    let (gt, tp) = if p.generic {
        ("T", "<T: mica::Real>")
    } else {
        (ft, "")
    };
    let half = if p.generic {
        "T::from(0.5).unwrap()".to_string()
    } else {
        format!("0.5_{ft}")
    };
    let term =
        |a: &str, b: &str, c: &str, half: &str| format!("(({a}) * {c}).sin() * {half} + ({b})");
    let (a, b) = (&knobs[0], &knobs[knobs.len() - 1]);
    // Mica's, tracking the struct: a free function given it whole, or a
    // method of its own `#[tape] impl`
    let me = if is_method_callee(p) { "self" } else { "kn" };
    let read = |(n, sh): &(String, Shape)| format!("{me}.{}{}", field_path(p, n), first(sh));
    let value = match p.struct_walk && field_path(p, &b.0).starts_with("items[") {
        // the knob of `items[1]` reached by walking the items (the decoy
        // `items[0]` passed over, its slopes zero)
        true => format!(
            "{{
        let mut walk = {};
        for (j, it) in {me}.items.iter().enumerate() {{
            \
             if j == 1 {{
                walk = it.{}{};
            }}
        }}
        {}
    }}",
            read(a),
            b.0,
            first(&b.1),
            term(&read(a), "walk", "c", &half)
        ),
        false => term(&read(a), &read(b), "c", &half),
    };
    if !is_method_callee(p) {
        writeln!(
            o,
            "#[tape]\npub fn p{id}_s{tp}(#[tracked] kn: &{}, c: {gt}) -> {gt} {{\n    {value}\n}}\n",
            struct_ty(p, id, gt),
        )
        .unwrap();
    } else if p.struct_array {
        writeln!(
            o,
            "#[tape]\nimpl{tp} {} {{\n    pub fn s(#[tracked] &self, c: {gt}) -> [{gt}; 2] {{\n        \
             [{value}, {}]\n    }}\n}}\n",
            struct_ty(p, id, gt),
            read(b),
        )
        .unwrap();
    } else {
        writeln!(
            o,
            "#[tape]\nimpl{tp} {} {{\n    pub fn s(#[tracked] &self, c: {gt}) -> {gt} {{\n        {value}\n    }}\n}}\n",
            struct_ty(p, id, gt),
        )
        .unwrap();
    }
    // one parameter per knob: the plain adjoint's and the dual numbers'
    for (suffix, t, ct) in [
        ("q", gt, gt),
        ("d", if p.f32 { "Dual32" } else { "Dual" }, ft),
    ] {
        let dual = suffix == "d";
        let params: Vec<String> = knobs
            .iter()
            .map(|(n, sh)| {
                let tr = if dual { "" } else { "#[tracked] " };
                format!("{tr}{n}: {}", knob_ty(*sh, t))
            })
            .collect();
        let (attr, tp, c, half) = if dual {
            ("", "", format!("cst{sfx}(c)"), format!("cst{sfx}(0.5)"))
        } else {
            ("#[tape(plain)]\n", tp, "c".to_string(), half.clone())
        };
        let read = |(n, sh): &(String, Shape)| format!("{n}{}", first(sh));
        writeln!(
            o,
            "{attr}pub fn p{id}_s_{suffix}{tp}({}, c: {ct}) -> {t} {{\n    {}\n}}\n",
            params.join(", "),
            term(&read(a), &read(b), &c, &half)
        )
        .unwrap();
    }
}

/// Whether a struct program's second function is a method of its struct
/// (a tuple of knobs has no `impl`).
fn is_method_callee(p: &Program) -> bool {
    p.structs && p.struct_method && !is_tuple(p)
}

/// How a struct program's function calls its second function with the
/// struct `kn` (`&kn` in a window, whose struct is a value).
fn struct_call(p: &Program, id: usize, borrow: &str, cp: &str) -> String {
    match (is_method_callee(p), p.struct_array) {
        (false, _) => format!("p{id}_s({borrow}kn, {cp})"),
        (true, false) => format!("kn.s({cp})"),
        (true, true) => format!("kn.s({cp})[0]"),
    }
}

/// Whether a struct program tracks a tuple of its knobs (see
/// [`field_path`]).
fn is_tuple(p: &Program) -> bool {
    p.structs && p.knobs.len() == 2 && p.knobs[1].1 == Shape::Scalar
}

/// The type a struct program tracks: `P{id}K` (with `<T>` when generic),
/// or the tuple of its knobs' types in `t`.
fn struct_ty(p: &Program, id: usize, t: &str) -> String {
    if !is_tuple(p) {
        let targ = if p.generic { "<T>" } else { "" };
        return format!("P{id}K{targ}");
    }
    let elems: Vec<String> = p.knobs.iter().map(|(_, sh)| field_ty(*sh, t)).collect();
    format!("({})", elems.join(", "))
}

/// A knob's type as a struct's field (or a tuple's element).
fn field_ty(sh: Shape, t: &str) -> String {
    match sh {
        Shape::Scalar => t.to_string(),
        Shape::Arr(l) => format!("[{t}; {l}]"),
        Shape::Slice(_) => format!("Vec<{t}>"),
        Shape::Mat(r, c) => format!("[[{t}; {c}]; {r}]"),
    }
}

/// A field read out of a struct: a clone when it is under an index (not
/// moved out of a `Vec` or an array).
fn owned(path: &str) -> String {
    match path.contains('[') {
        true => format!("{path}.clone()"),
        false => path.to_string(),
    }
}

/// The struct literal of a struct program from each knob's value.
fn struct_literal(p: &Program, id: usize, values: &[String]) -> String {
    if is_tuple(p) {
        return format!("({})", values.join(", "));
    }
    let (mut outer, mut inner, mut items) = (Vec::new(), Vec::new(), Vec::new());
    for ((n, _), v) in p.knobs.iter().zip(values) {
        let field = format!("{n}: {v}");
        let path = field_path(p, n);
        if path.starts_with("inner.") {
            inner.push(field);
        } else if path.starts_with("items[") {
            items.push((format!("{n}: ({v}).clone()"), field));
        } else {
            outer.push(field);
        }
    }
    if !inner.is_empty() {
        outer.push(format!("inner: P{id}J {{ {} }}", inner.join(", ")));
    }
    if !items.is_empty() {
        let (decoy, real): (Vec<String>, Vec<String>) = items.into_iter().unzip();
        let (open, close) = if id.is_multiple_of(2) {
            ("vec![", "]")
        } else {
            ("[", "]")
        };
        outer.push(format!(
            "items: {open}P{id}E {{ {} }}, P{id}E {{ {} }}{close}",
            decoy.join(", "),
            real.join(", ")
        ));
    }
    format!("P{id}K {{ {} }}", outer.join(", "))
}

fn knob_ty(sh: Shape, t: &str) -> String {
    match sh {
        Shape::Scalar => t.to_string(),
        Shape::Arr(n) => format!("&[{t}; {n}]"),
        Shape::Slice(_) => format!("&[{t}]"),
        Shape::Mat(r, c) => format!("&[[{t}; {c}]; {r}]"),
    }
}

/// Renders a two-parameter helper `(a, b)` (the scalar helper `h`, or the
/// method `m`) in both dialects: `head` gives the Mica form's signature up
/// to the parameters, `dual_head` the dual form's.
fn render_helper(
    o: &mut String,
    (body, out): (&[S], &E),
    id: usize,
    (f32, generic): (bool, bool),
    (head, dual_head, pad): (&str, &str, &str),
) {
    let mut hu = BTreeSet::new();
    let mut ha = BTreeSet::new();
    for s in body {
        refs_s(s, &mut hu, &mut ha);
    }
    refs_e(out, &mut hu);
    for dual in [false, true] {
        let r = R {
            dual,
            f32,
            generic,
            used: &hu,
            assigned: &ha,
            id,
        };
        let (t, tr) = (r.t(), if dual { "" } else { "#[tracked] " });
        let (a, b) = (r.n("a"), r.n("b"));
        if dual {
            writeln!(o, "{dual_head}{a}: {t}, {b}: {t}) -> {t} {{").unwrap();
        } else {
            writeln!(
                o,
                "{pad}#[tape]\n{pad}{head}{tr}{a}: {t}, {tr}{b}: {t}) -> {t} {{"
            )
            .unwrap();
        }
        let mut text = String::new();
        r.block(body, 1, &mut text);
        writeln!(text, "    {}\n}}", r.e(out).0).unwrap();
        let pad = if dual { "" } else { pad };
        for line in text.lines() {
            writeln!(o, "{pad}{line}").unwrap();
        }
        if !dual && !pad.is_empty() {
            writeln!(o, "}}").unwrap();
        }
        o.push('\n');
    }
}

/// The value a block helper's tail sums: the body's top-level values and
/// the parameters the body changes (a by-value array's first element;
/// without `UNREAD_PARAMS`, every array's the body does not read),
/// squashed by `tanh` where it must stay small.
fn u_sum(u: &UHelper, used: &BTreeSet<String>, assigned: &BTreeSet<String>) -> E {
    let mut outs = outputs_of(&u.body);
    for (n, p) in &u.params {
        match p {
            PKind::Scalar if assigned.contains(n) => outs.push(E::Var(n.clone())),
            PKind::Arr if assigned.contains(n) && u.tail_var.as_ref() != Some(n) => {
                outs.push(E::Index(n.clone(), Ix::Const(0)))
            }
            PKind::Arr | PKind::Ref | PKind::Slice(_) if !UNREAD_PARAMS && !used.contains(n) => {
                outs.push(E::Index(n.clone(), Ix::Const(0)))
            }
            _ => {}
        }
    }
    if outs.is_empty() {
        outs.push(E::Lit(0.5));
    }
    let total = sum(&outs);
    if u.squash {
        E::M1("tanh", b(total))
    } else {
        total
    }
}

/// Block helper `u{k}` in one dialect: `p{id}_u{k}`, or `p{id}_u{k}_d`
/// over the dual numbers.
fn render_uhelper(
    u: &UHelper,
    k: usize,
    id: usize,
    (f32, generic): (bool, bool),
    dual: bool,
) -> String {
    let mut used = BTreeSet::new();
    let mut asg = BTreeSet::new();
    for s in &u.body {
        refs_s(s, &mut used, &mut asg);
    }
    // (an array returned as a parameter, `v[1] += sum; v`, has no extras)
    if u.tail_var.is_none() {
        for e in &u.extra {
            refs_e(e, &mut used);
        }
    }
    if let Some(v) = &u.tail_var {
        used.insert(v.clone());
        asg.insert(v.clone());
    }
    let first_out = u
        .params
        .iter()
        .find(|(_, p)| is_out(p))
        .map(|(n, _)| n.clone());
    if u.ret == Ret::Unit {
        if let Some(y) = &first_out {
            used.insert(y.clone());
        }
    }
    // (without `UNREAD_PARAMS`, every out-parameter written)
    let unwritten: Vec<String> = u
        .params
        .iter()
        .filter(|(n, p)| !UNREAD_PARAMS && is_out(p) && !asg.contains(n))
        .map(|(n, _)| n.clone())
        .collect();
    used.extend(unwritten.iter().cloned());
    let total = u_sum(u, &used, &asg);
    refs_e(&total, &mut used);
    let r = R {
        dual,
        f32,
        generic,
        used: &used,
        assigned: &asg,
        id,
    };
    let t = r.t();
    let params: Vec<String> = u
        .params
        .iter()
        .map(|(n, p)| {
            let (m, n) = (r.mutk(n), r.n(n));
            match p {
                PKind::Scalar => format!("{m}{n}: {t}"),
                PKind::Arr => format!("{m}{n}: [{t}; 3]"),
                PKind::Ref => format!("{n}: &[{t}; 3]"),
                PKind::Slice(_) => format!("{n}: &[{t}]"),
                PKind::Out => format!("{n}: &mut [{t}; 3]"),
                PKind::OutSlice(_) => format!("{n}: &mut [{t}]"),
            }
        })
        .collect();
    let ret = match u.ret {
        Ret::Scalar => format!(" -> {t}"),
        Ret::Arr => format!(" -> [{t}; 3]"),
        Ret::Tuple => format!(" -> ({t}, {t})"),
        Ret::Unit => String::new(),
    };
    let d = if dual { "_d" } else { "" };
    let tp = if generic && !dual {
        "<T: mica::Real>"
    } else {
        ""
    };
    let mut o = format!("pub fn p{id}_u{k}{d}{tp}({}){ret} {{\n", params.join(", "));
    r.block(&u.body, 1, &mut o);
    for y in &unwritten {
        writeln!(o, "    {y}[0] += {};", r.lit(0.5).0).unwrap();
    }
    let total = r.e(&total).0;
    match (u.ret, &u.tail_var) {
        (Ret::Scalar, _) if u.summed && !dual => writeln!(o, "    [{total}].iter().sum()").unwrap(),
        (Ret::Scalar, _) => writeln!(o, "    {total}").unwrap(),
        (Ret::Arr, Some(v)) => writeln!(o, "    {v}[1] += {total};\n    {v}").unwrap(),
        (Ret::Arr, None) => writeln!(
            o,
            "    [{total}, {}, {}]",
            r.e(&u.extra[0]).0,
            r.e(&u.extra[1]).0
        )
        .unwrap(),
        (Ret::Tuple, _) => writeln!(o, "    ({total}, {})", r.e(&u.extra[0]).0).unwrap(),
        (Ret::Unit, _) => {
            let y = first_out.expect("a helper returning nothing writes an out-parameter");
            writeln!(o, "    {y}[0] += {total};").unwrap()
        }
    }
    o.push_str("}\n\n");
    o
}

/// The block helper generic over a length (`E::CallN`), `p{id}_n` in
/// Mica's dialect (float `t`), `p{id}_n_d` in the dual numbers' (`t` the
/// dual type, `cst` its constant maker).
fn render_nhelper(id: usize, t: &str, cst: &str) -> String {
    let float = if t.ends_with("32") { "f32" } else { "f64" };
    let (d, zero, position) = match cst {
        "" => ("", format!("0.0_{t}"), format!("(i as {t} + 0.5_{t})")),
        c => (
            "_d",
            format!("{c}(0.0)"),
            format!("{c}(i as {float} + 0.5)"),
        ),
    };
    format!(
        "pub fn p{id}_n{d}<const N: usize>(a: &[{t}; N], w: {t}) -> {t} {{\n    \
         let mut s = {zero};\n    \
         for i in 0..N {{\n        s += (a[i] * w).sin() * {position};\n    }}\n    s\n}}\n\n"
    )
}

/// The program's items, named `p{id}_…`, in the crate's `lib.rs`.
pub fn render(p: &Program, id: usize) -> String {
    let out_e = sum(&outputs(p));
    let mut used = BTreeSet::new();
    let mut assigned = BTreeSet::new();
    for s in &p.body {
        refs_s(s, &mut used, &mut assigned);
    }
    refs_e(&out_e, &mut used);
    let calls_h = format!("{:?}", p.body).contains("CallH");
    let calls_g = format!("{:?}", p.body).contains("CallG");
    let calls_r = format!("{:?}", p.body).contains("CallR");
    let calls_n = format!("{:?}{:?}", p.body, p.us).contains("CallN");
    let calls_v = format!("{:?}", p.body).contains("CallV");
    let mut helper_hvp = false;
    let calls_m = used.contains("o");
    let blocks = !p.us.is_empty();
    let mut o = String::new();
    let (ft, dt, sfx) = if p.f32 {
        ("f32", "Dual32", "32")
    } else {
        ("f64", "Dual", "")
    };
    let dims: Vec<usize> = p
        .knobs
        .iter()
        .map(|(_, s)| match s {
            Shape::Scalar => 1,
            Shape::Arr(n) | Shape::Slice(n) => *n,
            Shape::Mat(r, c) => r * c,
        })
        .collect();
    // helpers (they have no `cp`: their literals only)
    // the float of Mica's dialect: `T` in a generic program
    let (gt, tp) = if p.generic {
        ("T", "<T: mica::Real>")
    } else {
        (ft, "")
    };
    let float = (p.f32, p.generic);
    if calls_h {
        let head = format!("pub fn p{id}_h{tp}(");
        let dual_head = format!("pub fn p{id}_h_d(");
        render_helper(
            &mut o,
            (&p.helper, &p.helper_out),
            id,
            float,
            (&head, &dual_head, ""),
        );
        // the helper writes its own forward mode and directional
        // derivative, so a caller asking for them follows it (not in a
        // generic program: a tangent of a generic float is not passed on)
        let helper = o[o.find(&head).unwrap_or(0)..].to_string();
        let helper = &helper[..helper.find("\n}\n").unwrap_or(helper.len())];
        if !p.generic && !helper.contains("let (") && !helper.contains("return ") {
            o = o.replacen(
                &format!("#[tape]\n{head}"),
                &format!("#[tape(tangent, hvp)]\n{head}"),
                1,
            );
            helper_hvp = true;
        }
    }
    if calls_m {
        writeln!(o, "pub struct P{id} {{\n    s: {ft},\n}}\n\nimpl P{id} {{").unwrap();
        let dual_head = format!("pub fn p{id}_m_d(o: &P{id}, ");
        render_helper(
            &mut o,
            (&p.method, &p.method_out),
            id,
            (p.f32, false),
            ("pub fn m(&self, ", &dual_head, "    "),
        );
    }
    // the literal 0.5 in the array helpers' dialect
    let half = if p.generic {
        "T::from(0.5).unwrap()"
    } else {
        "0.5"
    };
    if calls_g {
        // (with its own forward mode and `hvp` where the program is not
        // generic, so that callers asking for them follow it)
        let attr = if p.generic {
            "#[tape]"
        } else {
            "#[tape(tangent, hvp)]"
        };
        writeln!(
            o,
            "{attr}\npub fn p{id}_g{tp}(#[tracked] a: [{gt}; 3]) -> {gt} {{\n    \
             (a[0] * {half} - a[1] * a[2]).tanh() + a[2].sin()\n}}\n"
        )
        .unwrap();
        writeln!(
            o,
            "pub fn p{id}_g_d(a: [{dt}; 3]) -> {dt} {{\n    \
             (a[0] * cst{sfx}(0.5) - a[1] * a[2]).tanh() + a[2].sin()\n}}\n"
        )
        .unwrap();
    }
    if calls_r {
        // a row borrowed, of any length from two (with its own forward
        // mode and `hvp` where the program is not generic)
        let attr = if p.generic {
            "#[tape]"
        } else {
            "#[tape(tangent, hvp)]"
        };
        writeln!(
            o,
            "{attr}\npub fn p{id}_r{tp}(#[tracked] r: &[{gt}]) -> {gt} {{\n    \
             (r[0] * {half} - r[1]).tanh() * r[r.len() - 1] + r[1].sin()\n}}\n"
        )
        .unwrap();
        writeln!(
            o,
            "pub fn p{id}_r_d(r: &[{dt}]) -> {dt} {{\n    \
             (r[0] * cst{sfx}(0.5) - r[1]).tanh() * r[r.len() - 1] + r[1].sin()\n}}\n"
        )
        .unwrap();
    }
    if calls_v {
        // an array out, built from a literal and written by element (its
        // forward mode followed by callers'; `hvp` is for scalars)
        let attr = if p.generic {
            "#[tape]"
        } else {
            "#[tape(tangent)]"
        };
        writeln!(
            o,
            "{attr}\npub fn p{id}_v{tp}(#[tracked] a: [{gt}; 3]) -> [{gt}; 3] {{\n    \
             let mut w = [a[0] * a[1] - {half}, (a[2] * {half}).sin(), a[0]];\n    \
             w[2] = w[2].tanh() + a[2] * w[0];\n    \
             w\n}}\n"
        )
        .unwrap();
        writeln!(
            o,
            "pub fn p{id}_v_d(a: [{dt}; 3]) -> [{dt}; 3] {{\n    \
             let mut w = [a[0] * a[1] - cst{sfx}(0.5), (a[2] * cst{sfx}(0.5)).sin(), a[0]];\n    \
             w[2] = w[2].tanh() + a[2] * w[0];\n    \
             w\n}}\n"
        )
        .unwrap();
        // a tuple out, read by `let (q0, q1, _) = …`
        writeln!(
            o,
            "{attr}\npub fn p{id}_t{tp}(#[tracked] a: [{gt}; 3]) -> ({gt}, {gt}, {gt}) {{\n    \
             let w = a[0] * a[1] - {half};\n    \
             (w, (a[2] * {half}).sin(), w.tanh() + a[2] * a[0])\n}}\n"
        )
        .unwrap();
        writeln!(
            o,
            "pub fn p{id}_t_d(a: [{dt}; 3]) -> ({dt}, {dt}, {dt}) {{\n    \
             let w = a[0] * a[1] - cst{sfx}(0.5);\n    \
             (w, (a[2] * cst{sfx}(0.5)).sin(), w.tanh() + a[2] * a[0])\n}}\n"
        )
        .unwrap();
    }
    if p.structs && !is_tuple(p) {
        let (tp, t) = if p.generic { ("<T>", "T") } else { ("", ft) };
        let (mut inner, mut items) = (String::new(), String::new());
        writeln!(o, "#[derive(Clone, mica::Knob)]\npub struct P{id}K{tp} {{").unwrap();
        for (n, sh) in &p.knobs {
            let ty = field_ty(*sh, t);
            let path = field_path(p, n);
            if path.starts_with("inner.") {
                writeln!(inner, "    pub {n}: {ty},").unwrap();
            } else if path.starts_with("items[") {
                writeln!(items, "    pub {n}: {ty},").unwrap();
            } else {
                writeln!(o, "    pub {n}: {ty},").unwrap();
            }
        }
        if !inner.is_empty() {
            writeln!(o, "    pub inner: P{id}J{tp},").unwrap();
        }
        if !items.is_empty() {
            match id.is_multiple_of(2) {
                true => writeln!(o, "    pub items: Vec<P{id}E{tp}>,").unwrap(),
                false => writeln!(o, "    pub items: [P{id}E{tp}; 2],").unwrap(),
            }
        }
        writeln!(o, "}}\n").unwrap();
        if !items.is_empty() {
            writeln!(
                o,
                "#[derive(Clone, mica::Knob)]\npub struct P{id}E{tp} {{\n{items}}}\n"
            )
            .unwrap();
        }
        if !inner.is_empty() {
            writeln!(
                o,
                "#[derive(Clone, mica::Knob)]\npub struct P{id}J{tp} {{\n{inner}}}\n"
            )
            .unwrap();
        }
    }
    if p.structs {
        render_struct_callee(&mut o, p, id);
    }
    // Mica's function, its plain adjoint (function form: every shortcut
    // off), and the dual numbers' function; the plain adjoint's function
    // also asks for forward mode and Hessian-vector products when it calls
    // no other `#[tape]` function (forward mode does not follow calls yet)
    let mut higher = false;
    let mut no_hvp = false;
    for (dual, plain) in [(false, false), (false, true), (true, false)] {
        if plain && p.window {
            continue;
        }
        // Mica's function of a struct program tracks the struct
        let whole = p.structs && !dual && !plain;
        let r = R {
            dual,
            f32: p.f32,
            generic: p.generic,
            used: &used,
            assigned: &assigned,
            id,
        };
        let d = match (dual, plain) {
            (true, _) => "_d",
            (_, true) => "_q",
            _ => "",
        };
        let mut params = Vec::new();
        if whole && !p.window {
            params.push(format!("#[tracked] kn: &{}", struct_ty(p, id, gt)));
        }
        for (n, sh) in p.knobs.iter().filter(|_| !whole || p.window) {
            let tr = if dual || p.window { "" } else { "#[tracked] " };
            let nm = if p.window && !dual {
                format!("{n}_in")
            } else {
                r.n(n)
            };
            params.push(format!("{tr}{nm}: {}", knob_ty(*sh, r.t())));
        }
        params.push(format!("{}: {}", r.n("cp"), if dual { ft } else { gt }));
        params.push(format!("{}: usize", r.n("k")));
        if calls_m {
            params.push(format!("o: &P{id}"));
        }
        let ret = if dual {
            dt.to_string()
        } else if p.window {
            format!("({gt}, Vec<{gt}>)")
        } else {
            gt.to_string()
        };
        let tp = if dual { "" } else { tp };
        let start = o.len();
        if blocks {
            // the block's attribute covers the function
        } else if plain {
            writeln!(o, "#[tape(plain)]").unwrap();
        } else if !dual {
            writeln!(o, "#[tape]").unwrap();
        }
        writeln!(
            o,
            "pub fn p{id}_f{d}{tp}({}) -> {ret} {{",
            params.join(", ")
        )
        .unwrap();
        if p.window && whole {
            // a window's struct knob, its fields named by the window
            let values: Vec<String> = p
                .knobs
                .iter()
                .map(|(n, sh)| match sh {
                    Shape::Scalar => format!("{n}_in"),
                    Shape::Slice(_) => format!("{n}_in.to_vec()"),
                    _ => format!("*{n}_in"),
                })
                .collect();
            writeln!(
                o,
                "    #[tracked]\n    let kn: {} = {};\n    tape! {{",
                struct_ty(p, id, gt),
                struct_literal(p, id, &values)
            )
            .unwrap();
            for (n, sh) in p.knobs.iter().filter(|(n, _)| used.contains(n)) {
                let copy = if matches!(sh, Shape::Slice(_)) {
                    ".clone()"
                } else {
                    ""
                };
                writeln!(o, "        let {n} = kn.{}{copy};", field_path(p, n)).unwrap();
            }
            r.block(&p.body, 2, &mut o);
            writeln!(
                o,
                "        let out = {} + {};\n    }}",
                r.e(&out_e).0,
                struct_call(p, id, "&", &r.n("cp"))
            )
            .unwrap();
            writeln!(
                o,
                "    backward!(out);\n    let mut g = Vec::new();\n    let gk = gradient!(kn);"
            )
            .unwrap();
            for (n, sh) in &p.knobs {
                let f = field_path(p, n);
                match sh {
                    Shape::Scalar => writeln!(o, "    g.push(gk.{f});").unwrap(),
                    Shape::Mat(..) => {
                        writeln!(o, "    g.extend(gk.{f}.iter().flatten());").unwrap()
                    }
                    _ => writeln!(o, "    g.extend(gk.{f}.iter().copied());").unwrap(),
                }
            }
            writeln!(o, "    (out, g)\n}}\n").unwrap();
        } else if p.window && !dual {
            for (n, sh) in &p.knobs {
                let (ty, init) = match sh {
                    Shape::Scalar => (gt.to_string(), format!("{n}_in")),
                    Shape::Arr(l) => (format!("[{gt}; {l}]"), format!("*{n}_in")),
                    Shape::Slice(_) => (format!("Vec<{gt}>"), format!("{n}_in.to_vec()")),
                    Shape::Mat(r, c) => (format!("[[{gt}; {c}]; {r}]"), format!("*{n}_in")),
                };
                writeln!(o, "    #[tracked]\n    let {}: {ty} = {init};", r.n(n)).unwrap();
            }
            writeln!(o, "    tape! {{").unwrap();
            r.block(&p.body, 2, &mut o);
            writeln!(o, "        let out = {};\n    }}", r.e(&out_e).0).unwrap();
            writeln!(o, "    backward!(out);\n    let mut g = Vec::new();").unwrap();
            for (n, sh) in &p.knobs {
                let n = r.n(n);
                match sh {
                    Shape::Scalar => writeln!(o, "    g.push(gradient!({n}));").unwrap(),
                    Shape::Mat(..) => writeln!(
                        o,
                        "    g.extend(gradient!({n}).to_owned().iter().flatten());"
                    )
                    .unwrap(),
                    _ => writeln!(o, "    g.extend(gradient!({n}).to_owned());").unwrap(),
                }
            }
            writeln!(o, "    (out, g)\n}}\n").unwrap();
        } else {
            // a struct's knobs, named as the body reads them: a scalar
            // copied, an array or a `Vec` by reference
            // (now and then read from a copy of the struct, `let mut kc =
            // kn.clone();`, its first knob's first number written through
            // it, its value kept: not of a struct holding a `Vec` of
            // structs, which a copy does not follow)
            let copy = whole
                && p.struct_copy
                && !is_tuple(p)
                && !p
                    .knobs
                    .iter()
                    .any(|(n, _)| field_path(p, n).starts_with("items["));
            let from = if copy { "kc" } else { "kn" };
            if copy {
                writeln!(o, "    let mut kc = kn.clone();").unwrap();
                if let Some((n, sh)) = p.knobs.iter().find(|(n, _)| used.contains(n)) {
                    let at = format!("kc.{}{}", field_path(p, n), first_number(sh));
                    let two = r.e(&E::Lit(2.0)).0;
                    writeln!(o, "    {at} = {at} * {two} - {at};").unwrap();
                }
            }
            for (n, sh) in p.knobs.iter().filter(|(n, _)| whole && used.contains(n)) {
                let amp = if *sh == Shape::Scalar { "" } else { "&" };
                writeln!(o, "    let {n} = {amp}{from}.{};", field_path(p, n)).unwrap();
            }
            r.block(&p.body, 1, &mut o);
            let callee = match (p.structs, whole, dual) {
                (false, ..) => String::new(),
                // the struct passed whole to another `#[tape]` function
                (true, true, _) => format!(" + {}", struct_call(p, id, "", &r.n("cp"))),
                (true, false, d) => {
                    let mut args: Vec<String> =
                        struct_callee_knobs(p).iter().map(|(n, _)| r.n(n)).collect();
                    args.push(r.n("cp"));
                    let f = if d { "d" } else { "q" };
                    format!(" + p{id}_s_{f}({})", args.join(", "))
                }
            };
            writeln!(o, "    {}{callee}\n}}\n", r.e(&out_e).0).unwrap();
        }
        if plain && !dual {
            let twin = &o[start..];
            // the calls forward mode does not follow: to helpers without
            // their own (a generic program's), methods, custom rules,
            // struct adapters
            let mut calls = vec![format!("p{id}_s"), "o.m(".to_string(), "custom".to_string()];
            if !helper_hvp {
                calls.push(format!("p{id}_h"));
            }
            if p.generic {
                calls.push(format!("p{id}_g"));
                calls.push(format!("p{id}_r"));
                calls.push(format!("p{id}_v"));
                calls.push(format!("p{id}_t("));
            }
            higher = !calls.iter().any(|c| twin.contains(c.as_str()));
            if higher {
                // `hvp` follows calls to scalar functions with their own
                // (not through calls returning arrays or tuples)
                let hvp =
                    !twin.contains(&format!("p{id}_v(")) && !twin.contains(&format!("p{id}_t("));
                let twin = match (blocks, hvp) {
                    (true, _) => {
                        let head = format!("pub fn p{id}_f_q");
                        twin.replacen(&head, &format!("#[tape(tangent)]\n{head}"), 1)
                    }
                    (false, true) => {
                        twin.replacen("#[tape(plain)]", "#[tape(plain, tangent, hvp)]", 1)
                    }
                    (false, false) => twin.replacen("#[tape(plain)]", "#[tape(plain, tangent)]", 1),
                };
                no_hvp = blocks || !hvp;
                o.truncate(start);
                o.push_str(&twin);
            }
        }
        if !blocks {
            continue;
        }
        // with block helpers: the function and the helpers in a `#[tape]
        // mod` (`#[tape(plain)]` for the plain twin), its names brought
        // out; the dual numbers' helpers are plain functions
        let f = o.split_off(start);
        if dual {
            for (k, u) in p.us.iter().enumerate() {
                o.push_str(&render_uhelper(u, k, id, float, true));
            }
            if calls_n {
                o.push_str(&render_nhelper(id, dt, &format!("cst{sfx}")));
            }
            o.push_str(&f);
            continue;
        }
        let (attr, m) = if plain {
            ("#[tape(plain)]", format!("p{id}_bq"))
        } else {
            ("#[tape]", format!("p{id}_b"))
        };
        writeln!(
            o,
            "{attr}\npub mod {m} {{\n    #[allow(unused_imports)]\n    use super::*;\n"
        )
        .unwrap();
        let mut inner = String::new();
        for (k, u) in p.us.iter().enumerate() {
            inner.push_str(&render_uhelper(u, k, id, float, false));
        }
        if calls_n {
            inner.push_str(&render_nhelper(id, ft, ""));
        }
        inner.push_str(&f);
        for line in inner.trim_end().lines() {
            if line.is_empty() {
                o.push('\n');
            } else {
                writeln!(o, "    {line}").unwrap();
            }
        }
        writeln!(o, "}}\n").unwrap();
        let names = if plain && higher {
            format!("{{p{id}_f_q_grad, p{id}_f_q_tangent}}")
        } else if plain {
            format!("p{id}_f_q_grad")
        } else if p.window {
            format!("p{id}_f")
        } else {
            format!("{{p{id}_f, p{id}_f_backward, p{id}_f_grad}}")
        };
        writeln!(o, "pub use {m}::{names};\n").unwrap();
    }
    // the runner: unpack the flat point into the knobs' shapes (an `f32`
    // program's closures first convert the point, exactly, into `f32`)
    let mut args = Vec::new();
    let mut off = 0;
    for ((_, sh), &n) in p.knobs.iter().zip(&dims) {
        let a = match sh {
            Shape::Scalar => format!("p[{off}]"),
            Shape::Mat(r, c) => {
                let rows: Vec<String> = (0..*r)
                    .map(|i| {
                        let el: Vec<String> =
                            (0..*c).map(|j| format!("p[{}]", off + i * c + j)).collect();
                        format!("[{}]", el.join(", "))
                    })
                    .collect();
                format!("&[{}]", rows.join(", "))
            }
            Shape::Arr(_) => {
                let el: Vec<String> = (off..off + n).map(|i| format!("p[{i}]")).collect();
                format!("&[{}]", el.join(", "))
            }
            Shape::Slice(_) => format!("&p[{off}..{}]", off + n),
        };
        args.push(a);
        off += n;
    }
    // a struct program's Mica function takes the knobs as one struct
    let values: Vec<String> = p
        .knobs
        .iter()
        .zip(&args)
        .map(|((_, sh), a)| match sh {
            Shape::Scalar => a.clone(),
            Shape::Slice(_) => format!("{}.to_vec()", a.trim_start_matches('&')),
            _ => a.trim_start_matches('&').to_string(),
        })
        .collect();
    let mut args_s = vec![format!("&{}", struct_literal(p, id, &values))];
    // the same unpacking of a direction `v`, for the tangents
    let vargs: Vec<String> = args.iter().map(|a| a.replace("p[", "v[")).collect();
    for a in [&mut args, &mut args_s] {
        a.push("cp".into());
        a.push("k".into());
        if calls_m {
            a.push("&o".into());
        }
    }
    let arg_list = args.clone();
    let args = args.join(", ");
    let args_s = if p.structs {
        args_s.join(", ")
    } else {
        args.clone()
    };
    let to = if p.f32 {
        "let p = &harness::to32(p);\n        "
    } else {
        ""
    };
    let dual_call = if p.f32 {
        format!("let p = &to32(p);\n        from32(p{id}_f_d({args}))")
    } else {
        format!("p{id}_f_d({args})")
    };
    writeln!(o, "pub fn p{id}_run() -> Result<bool, String> {{").unwrap();
    writeln!(o, "    let at: [f64; {off}] = {:?};", p.at).unwrap();
    if p.f32 {
        writeln!(o, "    let (cp, k) = ({:?}_f32, {});", p.cp as f32, p.k).unwrap();
    } else {
        writeln!(o, "    let (cp, k) = ({:?}, {});", p.cp, p.k).unwrap();
    }
    if calls_m {
        writeln!(o, "    let o = P{id} {{ s: {:?} }};", p.obj).unwrap();
    }
    if p.window {
        writeln!(
            o,
            "    let primal = |p: &[f64]| {{\n        {to}f64::from(p{id}_f({args}).0)\n    }};"
        )
        .unwrap();
        writeln!(
            o,
            "    let grad = |p: &[f64]| {{\n        {to}let (y, g) = p{id}_f({args});\n        \
             (f64::from(y), g.into_iter().map(f64::from).collect())\n    }};"
        )
        .unwrap();
    } else {
        writeln!(
            o,
            "    let primal = |p: &[f64]| {{\n        {to}f64::from(p{id}_f({args_s}))\n    }};"
        )
        .unwrap();
        let gs: Vec<String> = (0..p.knobs.len()).map(|i| format!("g{i}")).collect();
        let pat = if gs.len() == 1 {
            gs[0].clone()
        } else {
            format!("({},)", gs.join(", "))
        };
        // the plain adjoint's gradient: one parameter per knob
        let grad_start = o.len();
        write!(o, "    let grad = |p: &[f64]| {{\n        {to}").unwrap();
        writeln!(o, "let (y, {pat}) = p{id}_f_grad({args});").unwrap();
        writeln!(o, "        let mut g: Vec<{ft}> = Vec::new();").unwrap();
        for (i, (_, sh)) in p.knobs.iter().enumerate() {
            match sh {
                Shape::Scalar => writeln!(o, "        g.push(g{i});").unwrap(),
                Shape::Mat(..) => writeln!(o, "        g.extend(g{i}.iter().flatten());").unwrap(),
                _ => writeln!(o, "        g.extend(g{i});").unwrap(),
            }
        }
        writeln!(
            o,
            "        (f64::from(y), g.into_iter().map(f64::from).collect())\n    }};"
        )
        .unwrap();
        // the plain adjoint's gradient, collected the same way; a struct
        // program's own gradient is the struct's fields
        let grad = o.split_off(grad_start);
        let plain = grad.replacen("let grad =", "let plain =", 1).replacen(
            &format!("p{id}_f_grad("),
            &format!("p{id}_f_q_grad("),
            1,
        );
        if p.structs {
            let take: Vec<String> = p
                .knobs
                .iter()
                .map(|(n, _)| owned(&format!("gs.{}", field_path(p, n))))
                .collect();
            let own = grad.replacen(
                &format!("let (y, {pat}) = p{id}_f_grad({args});"),
                &format!(
                    "let (y, gs) = p{id}_f_grad({args_s});\n        let ({},) = ({},);",
                    gs.join(", "),
                    take.join(", ")
                ),
                1,
            );
            o.push_str(&own);
        } else {
            o.push_str(&grad);
        }
        o.push_str(&plain);
        // _backward: slots carved out of one flat buffer (of the program's
        // float type)
        write!(
            o,
            "    let backward = |p: &[f64], s: &mut [f64]| {{\n        {to}"
        )
        .unwrap();
        writeln!(
            o,
            "let mut t: Vec<{ft}> = s.iter().map(|&x| x as {ft}).collect();"
        )
        .unwrap();
        let mut off = 0;
        let mut slots = Vec::new();
        for (i, ((_, sh), &n)) in p.knobs.iter().zip(&dims).enumerate() {
            match sh {
                Shape::Scalar => {
                    let m = if p.structs { "" } else { "mut " };
                    writeln!(o, "        let {m}s{i} = t[{off}];").unwrap();
                    slots.push(format!("&mut s{i}"));
                }
                Shape::Mat(r, c) => {
                    writeln!(o, "        let mut s{i} = [[0.0; {c}]; {r}];").unwrap();
                    writeln!(
                        o,
                        "        for (a, b) in s{i}.iter_mut().flatten().zip(&t[{off}..{}]) {{ *a = *b; }}",
                        off + n
                    )
                    .unwrap();
                    slots.push(format!("&mut s{i}"));
                }
                Shape::Arr(_) => {
                    writeln!(o, "        let mut s{i} = [0.0; {n}];").unwrap();
                    writeln!(o, "        s{i}.copy_from_slice(&t[{off}..{}]);", off + n).unwrap();
                    slots.push(format!("&mut s{i}"));
                }
                Shape::Slice(_) => {
                    let m = if p.structs { "" } else { "mut " };
                    writeln!(o, "        let {m}s{i} = t[{off}..{}].to_vec();", off + n).unwrap();
                    slots.push(format!("&mut s{i}[..]"));
                }
            }
            off += n;
        }
        if p.structs {
            // the slots as one struct, and back
            let names: Vec<String> = (0..p.knobs.len()).map(|i| format!("s{i}")).collect();
            let back: Vec<String> = p
                .knobs
                .iter()
                .map(|(n, _)| owned(&format!("sk.{}", field_path(p, n))))
                .collect();
            writeln!(
                o,
                "        let mut sk = {};\n        \
                 let y = p{id}_f_backward({args_s}, 0.5, &mut sk);\n        \
                 let ({},) = ({},);",
                struct_literal(p, id, &names),
                names.join(", "),
                back.join(", ")
            )
            .unwrap();
        } else {
            writeln!(
                o,
                "        let y = p{id}_f_backward({args}, 0.5, {});",
                slots.join(", ")
            )
            .unwrap();
        }
        let mut off = 0;
        for (i, ((_, sh), &n)) in p.knobs.iter().zip(&dims).enumerate() {
            match sh {
                Shape::Scalar => writeln!(o, "        t[{off}] = s{i};").unwrap(),
                Shape::Mat(..) => writeln!(
                    o,
                    "        for (a, b) in t[{off}..{}].iter_mut().zip(s{i}.iter().flatten()) {{ *a = *b; }}",
                    off + n
                )
                .unwrap(),
                _ => writeln!(o, "        t[{off}..{}].copy_from_slice(&s{i});", off + n).unwrap(),
            }
            off += n;
        }
        writeln!(
            o,
            "        for (a, b) in s.iter_mut().zip(t) {{ *a = f64::from(b); }}\n        \
             f64::from(y)\n    }};"
        )
        .unwrap();
    }
    writeln!(
        o,
        "    let dual = |p: &[Dual]| {{\n        {dual_call}\n    }};"
    )
    .unwrap();
    let (bw, plain) = if p.window {
        ("None", "None")
    } else {
        ("Some(&backward)", "Some(&plain)")
    };
    let (tangent, hvp) = if higher {
        // forward mode and `H·v` of the plain adjoint's function along
        // the direction `v`, unpacked as the point is
        let tov = if p.f32 {
            "let v = &harness::to32(v);\n        "
        } else {
            ""
        };
        let cargs = arg_list[vargs.len()..].join(", ");
        let (pargs, vj) = (arg_list[..vargs.len()].join(", "), vargs.join(", "));
        writeln!(
            o,
            "    let tangent = |p: &[f64], v: &[f64]| {{\n        {to}{tov}\
             let (y, d) = p{id}_f_q_tangent({pargs}, {cargs}, {vj});\n        \
             (f64::from(y), f64::from(d))\n    }};"
        )
        .unwrap();
        if !no_hvp {
            let gs: Vec<String> = (0..p.knobs.len()).map(|i| format!("g{i}")).collect();
            let hs: Vec<String> = (0..p.knobs.len()).map(|i| format!("h{i}")).collect();
            let pat = |n: &[String]| {
                if n.len() == 1 {
                    n[0].clone()
                } else {
                    format!("({},)", n.join(", "))
                }
            };
            writeln!(
                o,
                "    let hvp = |p: &[f64], v: &[f64]| {{\n        {to}{tov}\
                 let (y, {}, {}) = p{id}_f_q_hvp({pargs}, {cargs}, {vj});\n        \
                 let mut g: Vec<{ft}> = Vec::new();\n        let mut h: Vec<{ft}> = Vec::new();",
                pat(&gs),
                pat(&hs)
            )
            .unwrap();
            for (i, (_, sh)) in p.knobs.iter().enumerate() {
                match sh {
                    Shape::Scalar => writeln!(o, "        g.push(g{i});\n        h.push(h{i});").unwrap(),
                    Shape::Mat(..) => writeln!(
                        o,
                        "        g.extend(g{i}.iter().flatten());\n        h.extend(h{i}.iter().flatten());"
                    )
                    .unwrap(),
                    _ => writeln!(o, "        g.extend(g{i});\n        h.extend(h{i});").unwrap(),
                }
            }
            writeln!(
                o,
                "        (f64::from(y), g.into_iter().map(f64::from).collect(), \
                 h.into_iter().map(f64::from).collect())\n    }};"
            )
            .unwrap();
        }
        ("Some(&tangent)", if no_hvp { "None" } else { "Some(&hvp)" })
    } else {
        ("None", "None")
    };
    writeln!(
        o,
        "    harness::check(&harness::Program {{ f32: {}, primal: &primal, grad: &grad, \
         plain: {plain}, dual: &dual, backward: {bw}, tangent: {tangent}, hvp: {hvp} }}, &at)\n}}\n",
        p.f32
    )
    .unwrap();
    o
}

/// A readable listing of the program (its Mica form only), for reports.
pub fn listing(p: &Program) -> String {
    let full = render(p, 0);
    let mut keep = String::new();
    let mut on = false;
    for line in full.lines() {
        if line.starts_with("#[tape]")
            || line.starts_with("pub struct P0")
            || line.starts_with("#[derive(Clone, mica::Knob)]")
        {
            on = true;
        }
        // the dual forms (`p0_f_d`, `p0_h_d`, …) and the runner
        if line.starts_with("pub fn p0_") && (line.contains("_d(") || line.contains("_run(")) {
            on = false;
        }
        if on {
            keep.push_str(line);
            keep.push('\n');
        }
    }
    let ty = if p.f32 { " (f32)" } else { "" };
    format!(
        "{keep}// at {:?}, cp = {:?}, k = {}, o.s = {:?}{ty}",
        p.at, p.cp, p.k, p.obj
    )
}

// ---------------------------------------------------------------- shrinking

fn defs(s: &S) -> Vec<String> {
    match s {
        S::Let(n, _)
        | S::LetArr(n, _, _)
        | S::Made(n, ..)
        | S::LetMat(n, ..)
        | S::LetVec(n, _)
        | S::ShadowLet(n, _)
        | S::LetClosure(n, _, _)
        | S::View(n, ..) => vec![n.clone()],
        S::Unpack(names, ..) => names.iter().flatten().cloned().collect(),
        S::ShiftIdx(i, _) | S::LetIdx(i, ..) => vec![i.clone()],
        S::LetTuple(a, c, ..) => vec![a.clone(), c.clone()],
        S::LetIf(names, ..) => names.clone(),
        S::LoopValue(t, i, ..) => vec![t.clone(), i.clone()],
        S::Call(names, ..) => names.clone(),
        _ => vec![],
    }
}

/// Every block of the body, by path, for editing.
/// Whether a statement leaves the loop around it (not one inside it).
fn exits_here(s: &S) -> bool {
    match s {
        S::Exit(..) | S::ExitTo(..) => true,
        S::If(_, a, e) => a.iter().chain(e).any(exits_here),
        S::Match(arms) => arms.iter().flatten().any(exits_here),
        _ => false,
    }
}

fn blocks_mut(body: &mut Vec<S>, out: &mut Vec<*mut Vec<S>>) {
    out.push(body as *mut Vec<S>);
    for s in body.iter_mut() {
        match s {
            S::For(_, b) | S::While(_, _, _, b, _) => blocks_mut(b, out),
            S::If(_, a, e) => {
                blocks_mut(a, out);
                blocks_mut(e, out);
            }
            S::Match(arms) => arms.iter_mut().for_each(|a| blocks_mut(a, out)),
            _ => {}
        }
    }
}

/// A body to edit: the function's (root 0) or block helper `root - 1`'s.
fn root_mut(p: &mut Program, root: usize) -> &mut Vec<S> {
    if root == 0 {
        &mut p.body
    } else {
        &mut p.us[root - 1].body
    }
}

fn count_blocks(p: &Program, root: usize) -> Vec<usize> {
    let mut q = p.clone();
    let mut v = Vec::new();
    blocks_mut(root_mut(&mut q, root), &mut v);
    // SAFETY: the pointers point into `q`, alive and not otherwise borrowed
    v.iter().map(|&b| unsafe { (*b).len() }).collect()
}

fn edit(p: &Program, root: usize, block: usize, f: impl FnOnce(&mut Vec<S>)) -> Program {
    let mut q = p.clone();
    let mut v = Vec::new();
    blocks_mut(root_mut(&mut q, root), &mut v);
    // SAFETY: as in `count_blocks`; one pointer is used, once
    f(unsafe { &mut *v[block] });
    q
}

/// Every block helper index an expression calls, for reading or renumbering.
fn ucalls_e(e: &mut E, f: &mut dyn FnMut(&mut usize)) {
    match e {
        E::Var(_)
        | E::Deref(..)
        | E::Lit(_)
        | E::Param
        | E::IdxF(_)
        | E::Index(..)
        | E::Index2(..)
        | E::CallG(_)
        | E::CallR(_)
        | E::CallV(..)
        | E::SelfS => {}
        E::Bin(_, x, y) | E::M2(_, x, y) | E::CallH(x, y) | E::CallM(x, y) | E::Shadow(_, x, y) => {
            ucalls_e(x, f);
            ucalls_e(y, f);
        }
        E::Neg(x) | E::M1(_, x) | E::Powi(x, _) | E::Fun(_, x) | E::Custom(x) => ucalls_e(x, f),
        E::MulAdd(x, y, z) => {
            ucalls_e(x, f);
            ucalls_e(y, f);
            ucalls_e(z, f);
        }
        E::If(c, x, y) => {
            ucalls_e(&mut c.a, f);
            ucalls_e(&mut c.b, f);
            ucalls_e(x, f);
            ucalls_e(y, f);
        }
        E::Guard(_, x, _, a, o) | E::Opt(_, x, _, a, o, _) => {
            ucalls_e(x, f);
            ucalls_e(a, f);
            ucalls_e(o, f);
        }
        E::Match(es) | E::Pack(_, es) => es.iter_mut().for_each(|e| ucalls_e(e, f)),
        E::CallN(a, es, w) => {
            if a.is_none() {
                es.iter_mut().for_each(|e| ucalls_e(e, f));
            }
            ucalls_e(w, f);
        }
        E::CallU(k, args) | E::SumU(k, args) => {
            f(k);
            ucalls_args(args, f);
        }
        E::Chain(c) => {
            if let Some(es) = &mut c.lit {
                es.iter_mut().for_each(|e| ucalls_e(e, f));
            }
            if let Consume::Fold(init) = &mut c.consume {
                ucalls_e(init, f);
            }
            ucalls_e(&mut c.map, f);
        }
        E::CallC(_, x) => ucalls_e(x, f),
    }
}

fn ucalls_args(args: &mut [Arg], f: &mut dyn FnMut(&mut usize)) {
    for a in args {
        match a {
            Arg::S(e) => ucalls_e(e, f),
            Arg::L(_, es) => es.iter_mut().for_each(|e| ucalls_e(e, f)),
            Arg::A { .. } => {}
        }
    }
}

fn ucalls_c(c: &mut Cond, f: &mut dyn FnMut(&mut usize)) {
    ucalls_e(&mut c.a, f);
    ucalls_e(&mut c.b, f);
}

fn ucalls_s(s: &mut S, f: &mut dyn FnMut(&mut usize)) {
    let block =
        |b: &mut Vec<S>, f: &mut dyn FnMut(&mut usize)| b.iter_mut().for_each(|s| ucalls_s(s, f));
    match s {
        S::Let(_, e)
        | S::LetClosure(_, _, e)
        | S::Assign(_, _, e)
        | S::AssignFirst(_, _, e)
        | S::SetArrFirst(_, _, _, e)
        | S::SetArrMoved(_, _, _, _, e)
        | S::SetArr(_, _, _, e)
        | S::MutEach(_, _, _, e, _, _, _)
        | S::Regrow(_, _, e)
        | S::Shadow(_, e, _)
        | S::ShadowLet(_, e)
        | S::Made(_, _, _, e, _) => ucalls_e(e, f),
        S::LetArr(_, _, es) => es.iter_mut().flatten().for_each(|e| ucalls_e(e, f)),
        S::LetMat(_, _, rows, _) => rows
            .iter_mut()
            .flatten()
            .flatten()
            .for_each(|e| ucalls_e(e, f)),
        S::SetMat(.., e) => ucalls_e(e, f),
        S::LetVec(_, es) => es.iter_mut().for_each(|e| ucalls_e(e, f)),
        S::LetFill(_, e, _, _) => e.iter_mut().for_each(|e| ucalls_e(e, f)),
        S::LetScratch(_, e, _) | S::Pushed(_, _, e, ..) => ucalls_e(e, f),
        S::LetTuple(_, _, x, y, _) => {
            ucalls_e(x, f);
            ucalls_e(y, f);
        }
        S::For(_, body) => block(body, f),
        S::While(_, _, c, body, _) => {
            if let Some(c) = c {
                ucalls_c(c, f);
            }
            block(body, f);
        }
        S::If(c, a, e) => {
            ucalls_c(c, f);
            block(a, f);
            block(e, f);
        }
        S::Match(arms) => arms.iter_mut().for_each(|a| block(a, f)),
        S::Return(c, e) => {
            ucalls_c(c, f);
            ucalls_e(e, f);
        }
        S::Exit(c, _) | S::ExitTo(c, _, _) => ucalls_c(c, f),
        S::ShiftIdx(..)
        | S::LetIdx(..)
        | S::SwapScalars(..)
        | S::View(..)
        | S::Recopy(..)
        | S::SwapVecs(..)
        | S::LetBorrow(..)
        | S::RefElem(..)
        | S::Cursor(..)
        | S::IfGet(..)
        | S::Sorted(..)
        | S::Rebind(..)
        | S::Unpack(..) => {}
        S::Whole(_, op) => match op {
            Whole::Assign(es) => es.iter_mut().for_each(|e| ucalls_e(e, f)),
            Whole::Fill(e) => ucalls_e(e, f),
            _ => {}
        },
        S::LetIf(_, _, c, th, el) => {
            ucalls_c(c, f);
            th.iter_mut().chain(el).for_each(|e| ucalls_e(e, f));
        }
        S::LoopValue(_, _, _, c, body, e, _) => {
            ucalls_c(c, f);
            block(body, f);
            ucalls_e(e, f);
        }
        S::Call(_, k, _, args) => {
            f(k);
            ucalls_args(args, f);
        }
    }
}

/// Visits every call to a block helper in the program.
fn ucalls_program(p: &mut Program, f: &mut dyn FnMut(&mut usize)) {
    p.body.iter_mut().for_each(|s| ucalls_s(s, f));
    for u in p.us.iter_mut() {
        u.body.iter_mut().for_each(|s| ucalls_s(s, f));
        u.extra.iter_mut().for_each(|e| ucalls_e(e, f));
    }
}

/// `p` without block helpers nothing calls (the later ones renumbered).
fn drop_uncalled(p: &Program) -> Vec<Program> {
    let mut called = BTreeSet::new();
    ucalls_program(&mut p.clone(), &mut |k| {
        called.insert(*k);
    });
    (0..p.us.len())
        .filter(|k| !called.contains(k))
        .map(|gone| {
            let mut q = p.clone();
            q.us.remove(gone);
            ucalls_program(&mut q, &mut |k| {
                if *k > gone {
                    *k -= 1;
                }
            });
            q
        })
        .collect()
}

/// Simpler arguments for a call: a scalar a literal, an array a literal
/// (out-parameters stay).
fn simpler_args(args: &[Arg]) -> Vec<Vec<Arg>> {
    let mut out = Vec::new();
    for (i, a) in args.iter().enumerate() {
        let simple = match a {
            Arg::S(E::Lit(_)) => continue,
            Arg::S(_) => Arg::S(E::Lit(0.5)),
            Arg::L(_, es) if es.iter().all(|e| matches!(e, E::Lit(_))) => continue,
            Arg::L(to, es) => Arg::L(*to, vec![E::Lit(0.5); es.len()]),
            Arg::A { to, .. } if is_out(to) => continue,
            Arg::A { to, .. } => {
                let n = match to {
                    PKind::Slice(l) => *l,
                    _ => 3,
                };
                Arg::L(*to, vec![E::Lit(0.5); n])
            }
        };
        let mut v = args.to_vec();
        v[i] = simple;
        out.push(v);
    }
    out
}

/// Smaller variants of `p`: each deletes one statement (one whose names
/// nothing else reads), or replaces a statement's expression by a child or a
/// literal. Every variant still compiles by construction.
pub fn shrink_candidates(p: &Program) -> Vec<Program> {
    let mut out = drop_uncalled(p);
    for root in 0..=p.us.len() {
        shrink_root(p, root, &mut out);
    }
    out
}

/// The candidates that edit one body (`root_mut`).
fn shrink_root(p: &Program, root: usize, out: &mut Vec<Program>) {
    let lens = count_blocks(p, root);
    let edit = |p: &Program, bi: usize, f: &mut dyn FnMut(&mut Vec<S>)| edit(p, root, bi, f);
    for (bi, &len) in lens.iter().enumerate() {
        for si in 0..len {
            let mut del = edit(p, bi, &mut |b| {
                b.remove(si);
            });
            // the deleted statement's names must be read nowhere else
            let mut gone = Vec::new();
            let _ = edit(p, bi, &mut |b| gone = defs(&b[si]));
            let mut used = BTreeSet::new();
            let mut asg = BTreeSet::new();
            root_mut(&mut del, root)
                .iter()
                .for_each(|s| refs_s(s, &mut used, &mut asg));
            if root > 0 {
                // a helper's tail reads its extra values
                del.us[root - 1]
                    .extra
                    .iter()
                    .for_each(|e| refs_e(e, &mut used));
            }
            if gone.iter().all(|g| !used.contains(g) && !asg.contains(g)) || gone.is_empty() {
                // a top-level name is read by the output sum only
                out.push(del);
            }
            // simpler arguments for a helper's call
            let mut calls: Vec<Vec<Arg>> = Vec::new();
            let _ = edit(p, bi, &mut |b| {
                if let S::Call(_, _, _, args) = &b[si] {
                    calls = simpler_args(args);
                }
            });
            for c in calls {
                let mut c = Some(c);
                out.push(edit(p, bi, &mut |b| {
                    if let S::Call(_, _, _, args) = &mut b[si] {
                        *args = c.take().unwrap();
                    }
                }));
            }
            // simplify the statement's expression
            let mut exprs: Vec<E> = Vec::new();
            let _ = edit(p, bi, &mut |b| {
                let e = match &b[si] {
                    S::Let(_, e) | S::Assign(_, _, e) | S::SetArr(_, _, _, e) => Some(e),
                    S::Return(_, e) | S::Shadow(_, e, _) => Some(e),
                    _ => None,
                };
                if let Some(e) = e {
                    exprs = children(e);
                }
            });
            for c in exprs {
                let mut c = Some(c);
                out.push(edit(p, bi, &mut |b| match &mut b[si] {
                    S::Let(_, e) | S::Assign(_, _, e) | S::SetArr(_, _, _, e) => {
                        *e = c.take().unwrap()
                    }
                    S::Return(_, e) | S::Shadow(_, e, _) => *e = c.take().unwrap(),
                    _ => {}
                }));
            }
            // unwrap a control-flow statement into its first block
            let mut inner: Option<Vec<S>> = None;
            let _ = edit(p, bi, &mut |b| {
                inner = match &b[si] {
                    // a loop's exits would be left outside any loop
                    S::For(For::Range(..), body) | S::While(_, _, _, body, _)
                        if !body.iter().any(exits_here) =>
                    {
                        Some(body.clone())
                    }
                    S::If(_, a, _) => Some(a.clone()),
                    S::Match(arms) => arms.first().cloned(),
                    _ => None,
                }
            });
            if let Some(inner) = inner {
                let mut rs = BTreeSet::new();
                let mut asg = BTreeSet::new();
                inner.iter().for_each(|s| refs_s(s, &mut rs, &mut asg));
                // loop indices would be unbound outside the loop
                if !rs.iter().any(|n| n.starts_with('i') || n.starts_with('j')) {
                    let mut inner = Some(inner);
                    out.push(edit(p, bi, &mut |b| {
                        b.splice(si..=si, inner.take().unwrap());
                    }));
                }
            }
        }
    }
}

/// Children of an expression that may stand in its place (same type, same
/// names in scope), and a literal.
fn children(e: &E) -> Vec<E> {
    let mut v = Vec::new();
    match e {
        E::Bin(',', _, _) => {}
        E::Bin(_, x, y) | E::M2(_, x, y) | E::CallH(x, y) | E::CallM(x, y) => {
            v.push((**x).clone());
            if !matches!(**y, E::Bin(',', _, _)) {
                v.push((**y).clone());
            }
        }
        E::Neg(x) | E::M1(_, x) | E::Powi(x, _) | E::Fun(_, x) | E::Custom(x) => {
            v.push((**x).clone())
        }
        E::MulAdd(x, y, z) => v.extend([(**x).clone(), (**y).clone(), (**z).clone()]),
        E::If(_, x, y) => v.extend([(**x).clone(), (**y).clone()]),
        // (the arms read the bound name)
        E::Guard(_, x, ..) | E::Opt(_, x, ..) => v.push((**x).clone()),
        E::Match(arms) => v.extend(arms.iter().cloned()),
        E::Shadow(_, x, y) => v.extend([(**x).clone(), (**y).clone()]),
        E::CallC(_, x) => v.push((**x).clone()),
        // the chain's first element
        E::Chain(c) => match (&c.lit, &c.pairs) {
            (Some(es), _) => v.push(es[0].clone()),
            (None, Some((ps, _))) => v.push(E::Lit(ps[0].0)),
            (None, None) => v.push(E::Index(c.src.clone(), Ix::Const(0))),
        },
        E::CallU(_, args) | E::SumU(_, args) => {
            for a in args {
                if let Arg::S(x) = a {
                    v.push(x.clone());
                }
            }
        }
        // an array or a tuple: one element a literal at a time
        E::Pack(array, es) => {
            for i in 0..es.len() {
                if !matches!(es[i], E::Lit(_)) {
                    let mut es = es.clone();
                    es[i] = E::Lit(0.5);
                    v.push(E::Pack(*array, es));
                }
            }
            return v;
        }
        _ => {}
    }
    if !matches!(e, E::Lit(_)) {
        v.push(E::Lit(0.5));
    }
    v
}

/// A size, for picking the smaller of two programs.
pub fn size(p: &Program) -> usize {
    format!("{:?}{:?}", p.body, p.us).len()
}
