//! `twin!`, `suite_prelude!` and `slice_checks!`, shared by the test files
//! that compare the two forms.

/// Records a twin pair from one body: `$name`, a function with tracked
/// parameters, and `$window`, a function whose knobs are the same values
/// recorded by a `tape!` window. The body binds `$loss`; both return it with
/// the knobs' gradients (`$gt`, owned).
macro_rules! twin {
    (
        fn $name:ident, $window:ident
        ($($k:ident: $kt:ty => $gt:ty),+; $($p:ident: $pt:ty),*) -> $loss:ident
        { $($body:tt)* }
    ) => {
        #[tape]
        pub fn $name($(#[tracked] $k: $kt,)+ $($p: $pt),*) -> R {
            $($body)*
            $loss
        }

        #[tape]
        pub fn $window($($k: $kt,)+ $($p: $pt),*) -> (R, ($($gt,)+)) {
            $(
                #[tracked]
                let $k: $kt = $k;
            )+
            tape! { $($body)* }
            backward!($loss);
            ($loss, ($(gradient!($k).to_owned(),)+))
        }
    };
}

/// The start of a suite module for the float type `$r`: `tape` in scope,
/// `type R = $r`, and `fn check(f, at, claimed)`, which panics unless
/// `claimed` agrees with central finite differences of `f` at `at` within
/// `$tol`.
macro_rules! suite_prelude {
    ($r:ident, $tol:expr) => {
        use mica::tape;

        type R = $r;

        fn check(f: impl Fn(&[R]) -> R, at: &[R], claimed: &[R]) {
            let tol: R = $tol;
            if let Err(e) = mica::check::check_gradient_with(&f, at, claimed, tol) {
                panic!("{e} at {at:?}; claimed {claimed:?}");
            }
        }
    };
}

/// For the suites over slices (`forward_loops.rs`, `fast_reads.rs`):
/// `fn same(what, a, b)`, which panics unless `a` and `b` are equal bit for
/// bit, `fn same_sums` for slopes whose parts may be added in another order,
/// and six-coordinate `POINTS` to check at.
// the other files that include this module have checks of their own
#[allow(unused_macros)]
macro_rules! slice_checks {
    () => {
        fn same(what: &str, a: &[R], b: &[R]) {
            let bits = |v: &[R]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(a), bits(b), "{what}: {a:?} vs {b:?}");
        }

        /// The same slopes, their parts maybe added in another order (a
        /// neighbour's part waiting in a register): equal to a few units of
        /// rounding of numbers near 1.
        fn same_sums(what: &str, a: &[R], b: &[R]) {
            assert_eq!(a.len(), b.len(), "{what}: {a:?} vs {b:?}");
            for (x, y) in a.iter().zip(b) {
                let scale = x.abs().max(y.abs()).max(1.0);
                assert!(
                    (x - y).abs() <= 16.0 * R::EPSILON * scale,
                    "{what}: {a:?} vs {b:?}"
                );
            }
        }

        const POINTS: [[f64; 6]; 3] = [
            [0.7, -0.4, 1.3, 0.2, -0.9, 0.5],
            [-1.1, 0.9, 0.35, -0.6, 0.8, 1.2],
            [0.45, 1.6, -0.8, 1.0, 0.1, -0.3],
        ];
    };
}
