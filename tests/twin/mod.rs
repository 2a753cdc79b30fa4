//! `twin!` and `suite_prelude!`, shared by the test files that compare the
//! two forms.

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
