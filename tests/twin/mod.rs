//! `twin!`, shared by the test files that compare the two forms.

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
