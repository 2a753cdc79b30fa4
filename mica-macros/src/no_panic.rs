//! The macro never panics: property tests drive the expansion functions
//! with arbitrary and mutated token streams.
//!
//! Every input goes through `#[tape]`, `#[tape(custom)]` and `#[tracked]`,
//! each called twice: both calls must return (no panic) and give the same
//! tokens (the expansion is deterministic). The inputs:
//!
//! 1. arbitrary token streams, built from the idents, punctuation,
//!    literals and groups the macro cares about, plus `fn` skeletons whose
//!    signature is random and whose body holds random tokens inside
//!    `tape! {}`, `backward!()` and `gradient!()` (syn keeps macro bodies as
//!    tokens, so these reach the window form's own parsing);
//! 2. mutations (deletions, duplications, swaps, insertions, truncations,
//!    regrouping) of valid programs, applied to the token trees of every
//!    group so delimiters stay balanced;
//! 3. syntactically valid programs composed from small templates covering
//!    the expression and statement forms syn parses, placed in both forms,
//!    inside and outside a window and in `backward!` / `gradient!`, plus
//!    arithmetic-only programs, most of which expand without errors and so
//!    reach the record and the reverse sweep;
//! 4. named `#[test]`s for specific nasty inputs.

use proc_macro2::{Delimiter, Group, Ident, Literal, Punct, Spacing, TokenStream, TokenTree};
use proptest::prelude::*;
use proptest::sample::Index;
use std::panic::{catch_unwind, AssertUnwindSafe};

// ---------------------------------------------------------------------------
// The check
// ---------------------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
enum Entry {
    Tape,
    Tracked,
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "<non-string panic payload>".to_string()
    }
}

/// One expansion, its panic caught.
fn run(entry: Entry, args: &TokenStream, input: &TokenStream) -> Result<String, String> {
    let (args, input) = (args.clone(), input.clone());
    catch_unwind(AssertUnwindSafe(move || {
        match entry {
            Entry::Tape => crate::expand::tape(args, input),
            Entry::Tracked => crate::expand::tracked(args, input),
        }
        .to_string()
    }))
    .map_err(|payload| panic_message(&*payload))
}

/// Both calls return, and return the same tokens.
fn check(entry: Entry, args: &TokenStream, input: &TokenStream) -> Result<(), String> {
    let describe = || format!("\n  entry: {entry:?}\n  args: `{args}`\n  input: `{input}`");
    let first = run(entry, args, input)
        .map_err(|message| format!("the expansion panicked: {message}{}", describe()))?;
    let second = run(entry, args, input)
        .map_err(|message| format!("the second expansion panicked: {message}{}", describe()))?;
    if first != second {
        return Err(format!(
            "the expansion is not deterministic{}\n  first:  `{first}`\n  second: `{second}`",
            describe()
        ));
    }
    Ok(())
}

/// `#[tape(args)]`, `#[tape]`, `#[tape(custom)]` and `#[tracked(args)]`.
fn check_all(args: &TokenStream, input: &TokenStream) -> Result<(), String> {
    check(Entry::Tape, args, input)?;
    if !args.is_empty() {
        check(Entry::Tape, &TokenStream::new(), input)?;
    }
    if args.to_string() != "custom" {
        check(Entry::Tape, &tokens("custom"), input)?;
    }
    check(Entry::Tracked, args, input)
}

fn tokens(source: &str) -> TokenStream {
    source
        .parse()
        .unwrap_or_else(|e| panic!("test source does not tokenize: {e}\n`{source}`"))
}

/// Checks a source text with empty and `custom` args; panics with the report.
fn assert_no_panic(source: &str) {
    let input = tokens(source);
    if let Err(report) = check_all(&TokenStream::new(), &input) {
        panic!("{report}");
    }
}

/// `cases`, times `MICA_NO_PANIC_SCALE` if set (for a longer hunt).
fn config(cases: u32) -> ProptestConfig {
    let scale = std::env::var("MICA_NO_PANIC_SCALE")
        .ok()
        .and_then(|s| s.parse::<u32>().ok())
        .unwrap_or(1);
    ProptestConfig {
        cases: cases.saturating_mul(scale),
        // no regression files: this test writes nothing to the source tree
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

// ---------------------------------------------------------------------------
// 1. Arbitrary token streams
// ---------------------------------------------------------------------------

const INTERESTING_IDENTS: &[&str] = &[
    "tape", "backward", "gradient", "tracked", "fn", "let", "mut", "return", "self", "Self",
    "async", "await", "const", "f32", "f64", "as", "if", "else", "for", "in", "while", "loop",
    "match", "move", "mica", "detach", "custom", "break", "continue", "ref", "struct", "impl",
    "unsafe", "extern", "pub", "crate", "super", "where", "dyn", "static", "_", "a", "b", "x", "m",
    "loss", "s", "sin", "exp", "sqrt", "powi", "sigmoid", "Vec", "i32", "usize", "bool",
];

const RAW_IDENTS: &[&str] = &[
    "tape", "backward", "gradient", "tracked", "fn", "let", "mica",
];

const PUNCTS: &[char] = &[
    '!', '#', ';', ',', ':', '=', '+', '-', '*', '/', '&', '|', '.', '?', '<', '>', '@', '\'', '%',
    '^', '~', '$',
];

const OPERATORS: &[&str] = &[
    "+=", "-=", "*=", "/=", "->", "=>", "::", "..", "..=", "&&", "||", "==", "!=", "<=", ">=",
    "<<", ">>", "...",
];

const DELIMITERS: &[Delimiter] = &[
    Delimiter::Parenthesis,
    Delimiter::Brace,
    Delimiter::Bracket,
    Delimiter::None,
];

/// A token tree, readable in a proptest failure report.
#[derive(Clone, Debug)]
enum Tok {
    Ident(&'static str),
    Raw(&'static str),
    Punct(char, bool),
    /// a multi-character operator: joint puncts
    Op(&'static str),
    /// `'a`: a joint `'` and an ident
    Lifetime(&'static str),
    Int(u64),
    NegInt(i32),
    Float(f64),
    F32(f32),
    F64(f64),
    Str(String),
    Char(char),
    Group(Delimiter, Vec<Tok>),
}

fn punct(c: char, joint: bool) -> TokenTree {
    let spacing = if joint {
        Spacing::Joint
    } else {
        Spacing::Alone
    };
    TokenTree::Punct(Punct::new(c, spacing))
}

fn ident(name: &str) -> TokenTree {
    TokenTree::Ident(Ident::new(name, proc_macro2::Span::call_site()))
}

impl Tok {
    fn push(&self, out: &mut Vec<TokenTree>) {
        let literal = |l: Literal| TokenTree::Literal(l);
        match self {
            Tok::Ident(name) => out.push(ident(name)),
            Tok::Raw(name) => out.push(TokenTree::Ident(Ident::new_raw(
                name,
                proc_macro2::Span::call_site(),
            ))),
            Tok::Punct(c, joint) => out.push(punct(*c, *joint)),
            Tok::Op(op) => {
                let chars: Vec<char> = op.chars().collect();
                for (i, c) in chars.iter().enumerate() {
                    out.push(punct(*c, i + 1 < chars.len()));
                }
            }
            Tok::Lifetime(name) => {
                out.push(punct('\'', true));
                out.push(ident(name));
            }
            Tok::Int(v) => out.push(literal(Literal::u64_unsuffixed(*v))),
            Tok::NegInt(v) => out.push(literal(Literal::i32_suffixed(*v))),
            Tok::Float(v) => out.push(literal(Literal::f64_unsuffixed(*v))),
            Tok::F32(v) => out.push(literal(Literal::f32_suffixed(*v))),
            Tok::F64(v) => out.push(literal(Literal::f64_suffixed(*v))),
            Tok::Str(s) => out.push(literal(Literal::string(s))),
            Tok::Char(c) => out.push(literal(Literal::character(*c))),
            Tok::Group(delimiter, inner) => {
                out.push(TokenTree::Group(Group::new(*delimiter, stream_of(inner))));
            }
        }
    }
}

fn stream_of(toks: &[Tok]) -> TokenStream {
    let mut out = Vec::new();
    for tok in toks {
        tok.push(&mut out);
    }
    out.into_iter().collect()
}

fn leaf() -> impl Strategy<Value = Tok> {
    prop_oneof![
        6 => prop::sample::select(INTERESTING_IDENTS).prop_map(Tok::Ident),
        1 => prop::sample::select(RAW_IDENTS).prop_map(Tok::Raw),
        5 => (prop::sample::select(PUNCTS), any::<bool>()).prop_map(|(c, j)| Tok::Punct(c, j)),
        2 => prop::sample::select(OPERATORS).prop_map(Tok::Op),
        1 => prop::sample::select(&["a", "static", "l"][..]).prop_map(Tok::Lifetime),
        2 => (0u64..1000).prop_map(Tok::Int),
        1 => any::<i32>().prop_map(Tok::NegInt),
        2 => (-1.0e6f64..1.0e6).prop_map(Tok::Float),
        1 => (-10.0f32..10.0).prop_map(Tok::F32),
        1 => (-10.0f64..10.0).prop_map(Tok::F64),
        1 => prop::sample::select(&["", "a", "{}", "tape! {", "\\n\"", "gradient!(a)"][..])
            .prop_map(|s| Tok::Str(s.to_string())),
        1 => any::<char>().prop_map(Tok::Char),
    ]
}

/// Token trees nested to depth 4.
fn tok() -> impl Strategy<Value = Tok> {
    leaf().prop_recursive(3, 24, 5, |inner| {
        (
            prop::sample::select(DELIMITERS),
            prop::collection::vec(inner, 0..6),
        )
            .prop_map(|(delimiter, toks)| Tok::Group(delimiter, toks))
    })
}

fn toks(max: usize) -> impl Strategy<Value = Vec<Tok>> {
    prop::collection::vec(tok(), 0..max)
}

/// `#[tape(...)]` arguments: mostly meaningful, sometimes junk.
fn args() -> impl Strategy<Value = Vec<Tok>> {
    prop_oneof![
        3 => Just(vec![]),
        3 => Just(vec![Tok::Ident("custom")]),
        1 => Just(vec![Tok::Ident("custom"), Tok::Punct(',', false)]),
        1 => Just(vec![
            Tok::Ident("custom"),
            Tok::Punct(',', false),
            Tok::Ident("custom")
        ]),
        1 => Just(vec![
            Tok::Ident("custom"),
            Tok::Punct('=', false),
            Tok::Int(1)
        ]),
        1 => Just(vec![
            Tok::Ident("custom"),
            Tok::Group(Delimiter::Parenthesis, vec![])
        ]),
        2 => toks(4),
    ]
}

const PARAM_TYPES: &[&str] = &[
    "f64",
    "f32",
    "mica::F",
    "&f64",
    "&mut f64",
    "[f64; 2]",
    "&[f64]",
    "Vec<f64>",
    "(f64, f64)",
    "(f64)",
    "i32",
    "bool",
    "usize",
    "impl Fn(f64) -> f64",
    "Self",
    "T",
    "Option<f64>",
    "fn(f64) -> f64",
    "*const f64",
    "!",
    "_",
    "dyn std::any::Any",
    "<T as Tr>::F",
];

const PARAM_PATTERNS: &[&str] = &[
    "a", "b", "mut a", "_", "(a, b)", "ref a", "a @ _", "[a, b]", "S { x }", "mut x", "self",
];

const PARAM_ATTRS: &[&str] = &[
    "",
    "",
    "#[tracked]",
    "#[tracked]",
    "#[mica::tracked]",
    "#[tracked(x)]",
    "#[tracked = 1]",
    "#[tracked] #[tracked]",
    "#[cfg(test)]",
];

/// One parameter, or a receiver.
fn param() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => (
            prop::sample::select(PARAM_ATTRS),
            prop::sample::select(PARAM_PATTERNS),
            prop::sample::select(PARAM_TYPES),
        )
            .prop_map(|(attr, pat, ty)| format!("{attr} {pat}: {ty}")),
        1 => prop::sample::select(&["self", "&self", "&mut self", "#[tracked] self", "mut self: Box<Self>"][..])
            .prop_map(str::to_string),
    ]
}

const SIGNATURE_PREFIXES: &[&str] = &[
    "fn",
    "fn",
    "fn",
    "pub fn",
    "async fn",
    "const fn",
    "unsafe fn",
    "extern \"C\" fn",
    "pub(crate) const async unsafe fn",
];

const RETURN_TYPES: &[&str] = &[
    "",
    "-> f64",
    "-> f32",
    "-> (f64, f64)",
    "-> ()",
    "-> impl Copy",
    "-> !",
];

/// A function signature: `fn name<generics>(params) -> ret where …`.
fn signature() -> impl Strategy<Value = String> {
    (
        prop::sample::select(SIGNATURE_PREFIXES),
        prop::sample::select(&["f", "loss", "tape", "r#fn", "gradient"][..]),
        prop::sample::select(&["", "<T>", "<T: Copy, const N: usize>", "<'a>"][..]),
        prop::collection::vec(param(), 0..4),
        prop::sample::select(RETURN_TYPES),
        prop::sample::select(&["", "where T: Copy"][..]),
    )
        .prop_map(|(prefix, name, generics, params, ret, clause)| {
            format!(
                "{prefix} {name}{generics}({}) {ret} {clause}",
                params.join(", ")
            )
        })
}

/// A statement of a window-form body with a random hole; the holes sit in
/// macro bodies, which syn keeps as tokens, so the item still parses.
#[derive(Clone, Debug)]
enum Hole {
    Tracked(Vec<Tok>),
    Window(Vec<Tok>),
    Backward(Vec<Tok>),
    Gradient(Vec<Tok>),
    GradientInMacro(Vec<Tok>),
    Plain(&'static str),
}

fn hole() -> impl Strategy<Value = Hole> {
    prop_oneof![
        Just(Hole::Plain("#[tracked] let mut a = 0.0_f64;")),
        Just(Hole::Plain("#[tracked] let b = 1.0_f32;")),
        Just(Hole::Plain("tape! { let loss = a * a; }")),
        Just(Hole::Plain("backward!(loss);")),
        Just(Hole::Plain("let g = gradient!(a);")),
        toks(6).prop_map(Hole::Tracked),
        toks(10).prop_map(Hole::Window),
        toks(4).prop_map(Hole::Backward),
        toks(4).prop_map(Hole::Gradient),
        toks(4).prop_map(Hole::GradientInMacro),
    ]
}

impl Hole {
    fn render(&self) -> TokenStream {
        let (template, hole) = match self {
            Hole::Tracked(t) => ("#[tracked] let a = m!(HOLE);", t),
            Hole::Window(t) => ("tape! { HOLE }", t),
            Hole::Backward(t) => ("backward!(HOLE);", t),
            Hole::Gradient(t) => ("let g = gradient!(HOLE);", t),
            Hole::GradientInMacro(t) => ("println!(\"{}\", gradient!(HOLE));", t),
            Hole::Plain(s) => return tokens(s),
        };
        fill(&tokens(template), "HOLE", &stream_of(hole))
    }
}

/// Replaces the ident `name` by `with`, in every group.
fn fill(template: &TokenStream, name: &str, with: &TokenStream) -> TokenStream {
    let mut out = TokenStream::new();
    for tree in template.clone() {
        match tree {
            TokenTree::Ident(i) if i == name => out.extend([with.clone()]),
            TokenTree::Group(g) => {
                let mut new = Group::new(g.delimiter(), fill(&g.stream(), name, with));
                new.set_span(g.span());
                out.extend(std::iter::once(TokenTree::Group(new)));
            }
            tree => out.extend(std::iter::once(tree)),
        }
    }
    out
}

/// A `fn` item: random signature, body of holes (possibly nested in blocks
/// and loops). The holes are spliced in as token trees: random streams do
/// not always survive printing and re-tokenizing.
#[derive(Clone, Debug)]
struct Skeleton {
    attr: &'static str,
    signature: String,
    wrap: &'static str,
    inner: Vec<Hole>,
    outer: Vec<Hole>,
}

impl Skeleton {
    fn build(&self) -> TokenStream {
        let render = |holes: &[Hole]| holes.iter().flat_map(Hole::render).collect();
        let template = tokens(&format!(
            "{} {} {{ {} OUTER }}",
            self.attr, self.signature, self.wrap
        ));
        let template = fill(&template, "INNER", &render(&self.inner));
        fill(&template, "OUTER", &render(&self.outer))
    }
}

fn skeleton() -> impl Strategy<Value = Skeleton> {
    (
        prop::sample::select(&["", "#[inline]", "#[tape]", "/// doc"][..]),
        signature(),
        prop::sample::select(
            &[
                "{ INNER }",
                "for _ in 0..2 { INNER }",
                "if c { INNER }",
                "INNER",
            ][..],
        ),
        prop::collection::vec(hole(), 0..6),
        prop::collection::vec(hole(), 0..3),
    )
        .prop_map(|(attr, signature, wrap, inner, outer)| Skeleton {
            attr,
            signature,
            wrap,
            inner,
            outer,
        })
}

// ---------------------------------------------------------------------------
// 2. Mutations of valid programs
// ---------------------------------------------------------------------------

/// `(args, program)`: valid inputs of both forms.
const PROGRAMS: &[(&str, &str)] = &[
    (
        "",
        "fn loss(#[tracked] a: f64, #[tracked] b: f64, x: f64) -> f64 { let m = a * x - b; \
         let (p, q) = (m.sin(), b.exp()); let mut s = 0.0; s += p * q; s + g(m, x) + mica::sigmoid(a) }",
    ),
    (
        "",
        "fn main() { #[tracked] let mut a = 0.0_f64; for r in 0..3 { tape! { let m1 = a * 2.0 - 1.0; \
         let loss = m1 * m1; } backward!(loss); let s = gradient!(a); a -= 0.1 * s; \
         println!(\"{}\", gradient!(a)); } }",
    ),
    (
        "custom",
        "fn ratio(#[tracked] x: f64, #[tracked] y: f64) -> f64 { x / y }",
    ),
    (
        "custom",
        "fn snap(#[tracked] x: f32) -> f32 { x.round() }",
    ),
    (
        "",
        "fn energy(#[tracked] x: f64, #[tracked] v: f64, k: f64) -> f64 { let kinetic = 0.5 * v * v; \
         let potential = 0.5 * k * x * x + (x * 3.0).sin().powi(2); \
         let damped = { let t = kinetic.sqrt(); t * mica::sigmoid(v) }; kinetic + potential + damped }",
    ),
    (
        "",
        "fn calls(#[tracked] x: f64, #[tracked] v: f64) -> f64 { \
         energy(x, v, 2.0) * energy(v, x, 0.5) + mica::softplus(x) }",
    ),
    (
        "",
        "fn window(x0: f32, steps: usize) -> f32 { #[tracked] let mut x = x0; for _ in 0..steps { \
         tape! { let y = (x - 1.5).powi(2) + x.cos() * 0.1; } backward!(y); x -= 0.1 * gradient!(x); } x }",
    ),
    (
        "",
        "fn window_names(x: f64) -> (f64, f64) { let __mica_g1 = 10.0; #[tracked] let seed = x; \
         tape! { let __mica_v1 = seed * seed; let value = __mica_v1 * __mica_g1; } backward!(value); \
         (value, gradient!(seed)) }",
    ),
    (
        "",
        "fn methods(#[tracked] x: f32, #[tracked] y: f32) -> f32 { let a = x.atan2(y).clamp(-1.0, 1.0); \
         let b = x.mul_add(y, 2.0).powf(1.5) + y.floor(); if a > 0.0 { a * b } else { -a / b } }",
    ),
    (
        "",
        "fn two(x0: f64) -> (f64, f64) { #[tracked] let a = x0; #[tracked] let mut b = 2.0 * x0; \
         let mut out = (0.0, 0.0); { tape! { let (p, q) = (a * b, a.sin()); let l = p + q; } \
         backward!(l); out.0 = gradient!(a); } tape! { let l2 = b.exp() * a; } backward!(l2); \
         out.1 = gradient!(b) + gradient!(a); out }",
    ),
    (
        "",
        "fn looped(#[tracked] x: f64, n: usize) -> f64 { let mut acc = 0.0; \
         for i in 0..n { acc += x * i as f64; } match n { 0 => x, _ => acc.tanh() } }",
    ),
    (
        "",
        "pub(crate) fn generic<T: Into<f64> + Copy>(#[tracked] x: f64, t: T) -> f64 where T: Copy { \
         #[allow(unused)] let y: f64 = t.into(); let z = mica::detach(x); x * y + z }",
    ),
    (
        "",
        "fn closures() { #[tracked] let k = 1.5_f64; tape! { let e = (k * k).ln() + mica::sigmoid(k); } \
         backward!(e); let dk = gradient!(k); let f = |z: f64| z * dk; \
         println!(\"{} {}\", f(2.0), gradient!(k)); }",
    ),
    (
        "",
        "fn pair(#[tracked] a: f64, #[tracked] b: f64) -> (f64, f64) { let t = (a * b, a - b); \
         let (u, v) = t; if u > v { return (u, v); } (v.max(u), u.min(v)) }",
    ),
    (
        "",
        "fn nested(#[tracked] a: f64) -> f64 { fn inner(y: f64) -> f64 { y * 2.0 } \
         let c = loop { break a * 3.0; }; let d = [a, c][0] as f32 as f64; inner(c) + d.abs() }",
    ),
];

/// One edit of one token sequence (a group's contents or the top level).
#[derive(Clone, Debug)]
enum Op {
    Delete(Index),
    Duplicate(Index),
    Swap(Index, Index),
    Insert(Index, Tok),
    Replace(Index, Tok),
    Truncate(Index),
    /// replace a group by its contents
    Unwrap(Index),
    /// put a run of trees into a new group
    Wrap(Index, Index, Delimiter),
    Redelimit(Index, Delimiter),
}

#[derive(Clone, Debug)]
struct Mutation {
    /// which sequence, in pre-order over the groups
    sequence: Index,
    op: Op,
}

fn interesting_tok() -> impl Strategy<Value = Tok> {
    prop_oneof![
        prop::sample::select(INTERESTING_IDENTS).prop_map(Tok::Ident),
        (prop::sample::select(PUNCTS), any::<bool>()).prop_map(|(c, j)| Tok::Punct(c, j)),
        prop::sample::select(OPERATORS).prop_map(Tok::Op),
        (0u64..10).prop_map(Tok::Int),
        (0.0f64..4.0).prop_map(Tok::Float),
        prop::sample::select(DELIMITERS).prop_map(|d| Tok::Group(d, vec![])),
    ]
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let index = any::<Index>;
    let op = prop_oneof![
        3 => index().prop_map(Op::Delete),
        2 => index().prop_map(Op::Duplicate),
        2 => (index(), index()).prop_map(|(a, b)| Op::Swap(a, b)),
        3 => (index(), interesting_tok()).prop_map(|(i, t)| Op::Insert(i, t)),
        2 => (index(), interesting_tok()).prop_map(|(i, t)| Op::Replace(i, t)),
        1 => index().prop_map(Op::Truncate),
        1 => index().prop_map(Op::Unwrap),
        1 => (index(), index(), prop::sample::select(DELIMITERS))
            .prop_map(|(a, b, d)| Op::Wrap(a, b, d)),
        1 => (index(), prop::sample::select(DELIMITERS)).prop_map(|(i, d)| Op::Redelimit(i, d)),
    ];
    (index(), op).prop_map(|(sequence, op)| Mutation { sequence, op })
}

/// How many token sequences a stream holds: itself and every group's.
fn count_sequences(stream: &TokenStream) -> usize {
    1 + stream
        .clone()
        .into_iter()
        .map(|tree| match tree {
            TokenTree::Group(g) => count_sequences(&g.stream()),
            _ => 0,
        })
        .sum::<usize>()
}

fn apply(trees: &mut Vec<TokenTree>, op: &Op) {
    let len = trees.len();
    // an index into the trees, if there are any
    let at = |i: &Index| (len > 0).then(|| i.index(len));
    match op {
        Op::Delete(i) => {
            if let Some(i) = at(i) {
                trees.remove(i);
            }
        }
        Op::Duplicate(i) => {
            if let Some(i) = at(i) {
                trees.insert(i, trees[i].clone());
            }
        }
        Op::Swap(i, j) => {
            if let (Some(i), Some(j)) = (at(i), at(j)) {
                trees.swap(i, j);
            }
        }
        Op::Insert(i, tok) => {
            let mut new = Vec::new();
            tok.push(&mut new);
            let i = i.index(len + 1);
            trees.splice(i..i, new);
        }
        Op::Replace(i, tok) => {
            if let Some(i) = at(i) {
                let mut new = Vec::new();
                tok.push(&mut new);
                trees.splice(i..=i, new);
            }
        }
        Op::Truncate(i) => trees.truncate(i.index(len + 1)),
        Op::Unwrap(i) => {
            if let Some(i) = at(i) {
                if let TokenTree::Group(g) = &trees[i] {
                    let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                    trees.splice(i..=i, inner);
                }
            }
        }
        Op::Wrap(i, j, delimiter) => {
            let (i, j) = (i.index(len + 1), j.index(len + 1));
            let (start, end) = (i.min(j), i.max(j));
            let inner: TokenStream = trees.drain(start..end).collect();
            trees.insert(start, TokenTree::Group(Group::new(*delimiter, inner)));
        }
        Op::Redelimit(i, delimiter) => {
            if let Some(i) = at(i) {
                if let TokenTree::Group(g) = &trees[i] {
                    trees[i] = TokenTree::Group(Group::new(*delimiter, g.stream()));
                }
            }
        }
    }
}

/// Applies `op` to the `target`-th sequence (pre-order), rebuilding the
/// groups on the way so every delimiter stays balanced.
fn mutate_at(stream: TokenStream, target: &mut usize, op: &Op) -> TokenStream {
    let mut trees: Vec<TokenTree> = stream.into_iter().collect();
    let here = *target == 0;
    *target = target.wrapping_sub(1);
    if here {
        apply(&mut trees, op);
        return trees.into_iter().collect();
    }
    for tree in &mut trees {
        if *target == usize::MAX {
            break;
        }
        if let TokenTree::Group(g) = tree {
            let mut new = Group::new(g.delimiter(), mutate_at(g.stream(), target, op));
            new.set_span(g.span());
            *g = new;
        }
    }
    trees.into_iter().collect()
}

fn mutate(mut stream: TokenStream, mutations: &[Mutation]) -> TokenStream {
    for m in mutations {
        let mut target = m.sequence.index(count_sequences(&stream));
        stream = mutate_at(stream, &mut target, &m.op);
    }
    stream
}

// ---------------------------------------------------------------------------
// 3. Every syntax form syn parses, in both forms
// ---------------------------------------------------------------------------

const ATOMS: &[&str] = &[
    "a",
    "b",
    "x",
    "m",
    "s",
    "loss",
    "1.0",
    "2",
    "0.5_f64",
    "3f32",
    "-1.5",
    "v[0]",
    "(a, b)",
    "t.0",
    "p.x",
    "self.k",
    "std::f64::consts::PI",
    "f64::EPSILON",
    "()",
    "true",
    "'c'",
    "\"s\"",
];

const BINOPS: &[&str] = &[
    "+", "-", "*", "/", "%", "==", "!=", "<", ">", "<=", ">=", "&&", "||", "&", "|", "^", "<<",
    ">>",
];

const UNARY_METHODS: &[&str] = &[
    "sqrt", "floor", "sin", "cos", "exp", "ln", "tanh", "abs", "recip", "clone", "into",
];

const BINARY_METHODS: &[&str] = &["powi", "powf", "atan2", "max", "min", "hypot"];

const TERNARY_METHODS: &[&str] = &["clamp", "mul_add"];

/// Expression shapes with one hole `{0}`.
const UNARY_TEMPLATES: &[&str] = &[
    "-{0}",
    "!{0}",
    "*{0}",
    "&{0}",
    "&mut {0}",
    "({0})",
    "({0} as f32)",
    "({0} as i32 as f64)",
    "{0}?",
    "{0}.await",
    "async {{ {0} }}",
    "async move {{ {0} }}",
    "(|t: f64| t * {0})(1.0)",
    "move || {0}",
    "|| -> f64 {{ {0} }}",
    "loop {{ break {0}; }}",
    "'l: loop {{ break 'l {0}; }}",
    "'b: {{ break 'b {0}; }}",
    "{{ while {0} < 1.0 {{ continue; }} 0.0 }}",
    "{{ for i in 0..3 {{ let _ = {0}; }} s }}",
    "{{ for (i, w) in v.iter().enumerate() {{ s += {0}; }} s }}",
    "return {0}",
    "(return)",
    "break",
    "continue",
    "(..={0})",
    "({0}..)",
    "[{0}; 3]",
    "[{0}, 1.0][0]",
    "P {{ x: {0}, y: 1.0 }}.x",
    "P {{ x: {0}, ..Default::default() }}",
    "P {{ x }}",
    "vec![{0}]",
    "println!(\"{{}}\", {0})",
    "format!(\"{{:?}}\", {0})",
    "assert!({0} > 0.0)",
    "mica::sigmoid({0})",
    "mica::detach({0})",
    "f64::sqrt({0})",
    "g::<f64>({0})",
    "{{ let t = {0}; t * t }}",
    "{{ let mut t = {0}; t += 1.0; t }}",
    "{{ fn h(y: f64) -> f64 {{ y * 2.0 }} h({0}) }}",
    "unsafe {{ {0} }}",
    "const {{ 1.0 }} + {0}",
    "if let Some(z) = o {{ z + {0} }} else {{ 0.0 }}",
    "match {0} {{ z if z > 0.0 => z, _ => 0.0 }}",
    "match {0} {{ (p, q) => p * q }}",
    "({0}, 1.0).0",
    "Some({0})?",
    "gradient!({0})",
    "tape! {{ let z = {0}; }}",
    "backward!({0})",
    "{{ s = {0}; s }}",
    "{{ s *= {0}; s }}",
    "#[allow(unused)] {0}",
    "x.{0}",
];

/// Expression shapes with two holes.
const BINARY_TEMPLATES: &[&str] = &[
    "g({0}, {1})",
    "mica::softplus({0}) * {1}",
    "if {0} > 0.0 {{ {1} }} else {{ -{1} }}",
    "if {0} {{ {1} }}",
    "match {0} {{ 0 => {1}, _ => 1.0 }}",
    "{0}[{1}]",
    "({0}..{1})",
    "({0}..={1})",
    "({0}, {1})",
    "[{0}, {1}]",
    "{{ {0}; {1} }}",
    "{{ let (p, q) = ({0}, {1}); p * q }}",
    "{{ let [u, w] = [{0}, {1}]; u - w }}",
    "{{ let Some(z) = {0} else {{ return {1}; }}; z }}",
    "{{ while let Some(z) = {0} {{ s += {1}; }} s }}",
    "(|p, q| p + q)({0}, {1})",
    "{0}.map(|z| z * {1})",
    "P {{ x: {0}, y: {1} }}",
    "{0} = {1}",
    "{0} += {1}",
];

fn expr() -> impl Strategy<Value = String> {
    let atom = prop::sample::select(ATOMS).prop_map(str::to_string);
    atom.prop_recursive(4, 40, 3, |e| {
        prop_oneof![
            3 => (e.clone(), prop::sample::select(BINOPS), e.clone())
                .prop_map(|(l, op, r)| format!("({l} {op} {r})")),
            2 => (e.clone(), prop::sample::select(UNARY_METHODS))
                .prop_map(|(r, m)| format!("({r}).{m}()")),
            2 => (e.clone(), prop::sample::select(BINARY_METHODS), e.clone())
                .prop_map(|(r, m, a)| format!("({r}).{m}({a})")),
            1 => (e.clone(), prop::sample::select(TERNARY_METHODS), e.clone(), e.clone())
                .prop_map(|(r, m, a, b)| format!("({r}).{m}({a}, {b})")),
            4 => (prop::sample::select(UNARY_TEMPLATES), e.clone())
                .prop_map(|(t, a)| fill2(t, &a, "")),
            3 => (prop::sample::select(BINARY_TEMPLATES), e.clone(), e)
                .prop_map(|(t, a, b)| fill2(t, &a, &b)),
        ]
    })
}

const ARITH_ATOMS: &[&str] = &["a", "b", "x", "1.0", "2.0", "0.5", "-3.0"];

const ARITH_UNARY_TEMPLATES: &[&str] = &[
    "-{0}",
    "({0})",
    "({0}).powi(2)",
    "({0}).powi(-1)",
    "mica::sigmoid({0})",
    "mica::softplus({0})",
    "mica::detach({0})",
    "{{ let t = {0}; t * t }}",
    "{{ let mut t = {0}; t += 1.0; t }}",
    "({0} as f64)",
];

const ARITH_BINARY_TEMPLATES: &[&str] = &[
    "g({0}, {1})",
    "if {0} > 0.0 {{ {1} }} else {{ -{1} }}",
    "({0}, {1}).0",
    "{{ let (p, q) = ({0}, {1}); p * q }}",
    "({0}).max({1})",
];

/// Arithmetic the function form differentiates: most programs built from
/// it expand without errors, reaching the record and the reverse sweep.
fn arith() -> impl Strategy<Value = String> {
    let atom = prop::sample::select(ARITH_ATOMS).prop_map(str::to_string);
    atom.prop_recursive(4, 32, 3, |e| {
        prop_oneof![
            4 => (e.clone(), prop::sample::select(&["+", "-", "*", "/"][..]), e.clone())
                .prop_map(|(l, op, r)| format!("({l} {op} {r})")),
            2 => (e.clone(), prop::sample::select(UNARY_METHODS))
                .prop_map(|(r, m)| format!("({r}).{m}()")),
            1 => (e.clone(), prop::sample::select(&["powf", "atan2", "hypot"][..]), e.clone())
                .prop_map(|(r, m, a)| format!("({r}).{m}({a})")),
            1 => (e.clone(), prop::sample::select(TERNARY_METHODS), e.clone(), e.clone())
                .prop_map(|(r, m, a, b)| format!("({r}).{m}({a}, {b})")),
            2 => (prop::sample::select(ARITH_UNARY_TEMPLATES), e.clone())
                .prop_map(|(t, a)| fill2(t, &a, "")),
            1 => (prop::sample::select(ARITH_BINARY_TEMPLATES), e.clone(), e)
                .prop_map(|(t, a, b)| fill2(t, &a, &b)),
        ]
    })
}

/// Fills `{0}` and `{1}` and unescapes `{{ }}`, without touching braces
/// the holes bring in.
fn fill2(template: &str, a: &str, b: &str) -> String {
    let template = template.replace("{{", "\u{1}").replace("}}", "\u{2}");
    let mut out = String::new();
    let mut rest = template.as_str();
    while let Some(at) = rest.find('{') {
        out.push_str(&rest[..at]);
        let hole = &rest[at..at + 3];
        out.push_str(if hole == "{0}" { a } else { b });
        rest = &rest[at + 3..];
    }
    out.push_str(rest);
    out.replace('\u{1}', "{").replace('\u{2}', "}")
}

/// Statement shapes with one hole `{0}`.
const STMT_TEMPLATES: &[&str] = &[
    "let m = {0};",
    "let mut s = {0};",
    "let r: f64 = {0};",
    "let _ = {0};",
    "let (p, q) = ({0}, 1.0);",
    "let [u, w] = [{0}, 2.0];",
    "let Some(z) = {0} else {{ return 0.0; }};",
    "let ref y = {0};",
    "s += {0};",
    "s = {0};",
    "{0};",
    "#[tracked] let k = {0};",
    "#[tracked] let mut k = {0};",
    "#[tracked] let (k, j) = ({0}, 1.0);",
    "#[tracked] let k;",
    "if {0} > 0.0 {{ s += 1.0; }}",
    "for _ in 0..2 {{ s += {0}; }}",
    "while s < {0} {{ s += 1.0; }}",
    "loop {{ if {0} {{ break; }} }}",
    "match {0} {{ _ => {{}} }}",
    "{{ let inner = {0}; }}",
    "println!(\"{{}}\", {0});",
    "backward!({0});",
    "let d = gradient!({0});",
    "tape! {{ let w = {0}; }}",
    "fn inner() -> f64 {{ {0} }}",
    "struct S {{ f: f64 }}",
    "use std::f64::consts::PI;",
    "const C: f64 = 1.0;",
    "macro_rules! mm {{ () => {{}} }}",
    ";",
];

fn stmt() -> impl Strategy<Value = String> {
    (prop::sample::select(STMT_TEMPLATES), expr()).prop_map(|(t, e)| fill2(t, &e, ""))
}

fn stmts(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(stmt(), 0..max).prop_map(|s| s.join(" "))
}

/// The parts of one generated program.
#[derive(Clone, Debug)]
struct Parts {
    outer: String,
    inner: String,
    value: String,
    seed: String,
    knob: String,
}

fn parts() -> impl Strategy<Value = Parts> {
    (
        stmts(4),
        stmts(4),
        expr(),
        prop_oneof![Just("loss".to_string()), expr()],
        prop_oneof![Just("a".to_string()), expr()],
    )
        .prop_map(|(outer, inner, value, seed, knob)| Parts {
            outer,
            inner,
            value,
            seed,
            knob,
        })
}

/// Arithmetic statements, walked and asked about the knobs.
fn arith_parts() -> impl Strategy<Value = Parts> {
    let binding = |name: &'static str| {
        (prop::sample::select(&["let", "let mut"][..]), arith())
            .prop_map(move |(l, e)| format!("{l} {name} = {e};"))
    };
    (
        prop::collection::vec(binding("m"), 0..3),
        prop::collection::vec(binding("n"), 0..3),
        arith(),
        prop::sample::select(
            &[
                "loss", "loss", "loss", "loss", "loss", "m", "a", "x", "loss,",
            ][..],
        ),
        prop::sample::select(&["a", "a", "a", "b", "b", "x", "loss"][..]),
    )
        .prop_map(|(outer, inner, value, seed, knob)| Parts {
            outer: outer.join(" "),
            inner: inner.join(" "),
            value,
            seed: seed.to_string(),
            knob: knob.to_string(),
        })
}

impl Parts {
    /// The same pieces placed in both forms, in and out of windows.
    fn programs(&self) -> Vec<String> {
        let Parts {
            outer,
            inner,
            value,
            seed,
            knob,
        } = self;
        vec![
            // function form
            format!(
                "fn f(#[tracked] a: f64, #[tracked] b: f64, x: f64) -> f64 {{ {outer} {inner} {value} }}"
            ),
            format!("fn f(#[tracked] a: f32) -> f32 {{ let loss = {value}; {outer} loss }}"),
            // function form holding a window (an error, but must not panic)
            format!(
                "fn f(#[tracked] a: f64) -> f64 {{ tape! {{ {inner} let loss = {value}; }} \
                 backward!({seed}); gradient!({knob}) }}"
            ),
            // window form: statements outside and inside the window
            format!(
                "fn w(x: f64) -> f64 {{ #[tracked] let mut a = x; #[tracked] let b = 1.0; {outer} \
                 tape! {{ {inner} let loss = {value}; }} backward!({seed}); \
                 let g = gradient!({knob}); {outer} g }}"
            ),
            // a window in a loop, inside a nested block
            format!(
                "fn w() {{ #[tracked] let mut a = 0.0_f64; for _ in 0..3 {{ {{ tape! {{ \
                 let loss = {value}; {inner} }} backward!({seed}); a -= 0.1 * gradient!({knob}); }} }} }}"
            ),
            // the expression itself as the only statements
            format!("fn w() -> f64 {{ {value} }}"),
            format!("fn w() {{ tape! {{ {value} }} backward!({value}); gradient!({value}); }}"),
        ]
    }
}

// ---------------------------------------------------------------------------
// The properties
// ---------------------------------------------------------------------------

proptest! {
    #![proptest_config(config(1000))]

    /// Arbitrary token soup, as item and as args.
    #[test]
    fn arbitrary_token_streams_never_panic(args in args(), input in toks(16)) {
        check_all(&stream_of(&args), &stream_of(&input)).map_err(TestCaseError::fail)?;
    }
}

proptest! {
    #![proptest_config(config(600))]

    /// Random signatures, random tokens inside the macros of the body.
    #[test]
    fn fn_skeletons_with_random_holes_never_panic(args in args(), skeleton in skeleton()) {
        let input = skeleton.build();
        check_all(&stream_of(&args), &input).map_err(TestCaseError::fail)?;
    }
}

proptest! {
    #![proptest_config(config(1500))]

    /// Valid programs, edited at the token-tree level.
    #[test]
    fn mutated_programs_never_panic(
        program in prop::sample::select(PROGRAMS),
        mutations in prop::collection::vec(mutation(), 1..6),
    ) {
        let (args, source) = program;
        let input = mutate(tokens(source), &mutations);
        check_all(&tokens(args), &input).map_err(TestCaseError::fail)?;
    }
}

proptest! {
    #![proptest_config(config(150))]

    /// Syntactically valid expressions and statements, in both forms.
    #[test]
    fn syntax_forms_never_panic(parts in parts()) {
        for source in parts.programs() {
            let input = tokens(&source);
            check_all(&TokenStream::new(), &input).map_err(TestCaseError::fail)?;
        }
    }
}

proptest! {
    #![proptest_config(config(150))]

    /// Arithmetic the macro differentiates, in both forms.
    #[test]
    fn differentiable_programs_never_panic(parts in arith_parts()) {
        for source in parts.programs() {
            let input = tokens(&source);
            check_all(&TokenStream::new(), &input).map_err(TestCaseError::fail)?;
        }
    }
}

// ---------------------------------------------------------------------------
// Specific nasty inputs
// ---------------------------------------------------------------------------

#[test]
fn the_valid_programs_expand() {
    for (args, source) in PROGRAMS {
        let input = tokens(source);
        if let Err(report) = check_all(&tokens(args), &input) {
            panic!("{report}");
        }
    }
}

#[test]
fn empty_and_truncated_items() {
    for source in [
        "",
        "fn",
        "fn f",
        "fn f()",
        "fn f() ->",
        "#[tracked]",
        "#",
        "tape!",
    ] {
        assert_no_panic(source);
    }
    for args in [
        "",
        "custom",
        "custom,",
        "custom = 1",
        "custom(x)",
        "other",
        "#",
        "{}",
    ] {
        let report = check_all(&tokens(args), &TokenStream::new());
        assert!(report.is_ok(), "{}", report.unwrap_err());
    }
}

#[test]
fn items_that_are_not_free_functions() {
    for source in [
        "struct S { x: f64 }",
        "impl S { fn f(&self) {} }",
        "const C: f64 = 1.0;",
        "let a = 1.0;",
        "#[tracked] let a = 1.0;",
        "trait T { fn f(#[tracked] x: f64) -> f64; }",
        "extern \"C\" { fn f(x: f64) -> f64; }",
        "fn f(#[tracked] x: f64) -> f64;",
        "fn f(#[tracked] self) -> f64 { 1.0 }",
        "async fn f(#[tracked] x: f64) -> f64 { x }",
        "const unsafe extern \"C\" fn f(#[tracked] x: f64) -> f64 { x }",
    ] {
        assert_no_panic(source);
    }
}

#[test]
fn tracked_patterns_and_types() {
    for source in [
        "fn f(#[tracked] (a, b): (f64, f64)) -> f64 { a }",
        "fn f(#[tracked] [a, b]: [f64; 2]) -> f64 { a }",
        "fn f(#[tracked] ref a: f64) -> f64 { *a }",
        "fn f(#[tracked] a @ _: f64) -> f64 { a }",
        "fn f(#[tracked] _: f64) -> f64 { 1.0 }",
        "fn f(#[tracked] a: &mut f64) -> f64 { *a }",
        "fn f(#[tracked] a: Vec<f64>) -> f64 { a[0] }",
        "fn f(#[tracked] a: impl Into<f64>) -> f64 { a.into() }",
        "fn f(#[tracked] a: <T as Tr>::F) -> f64 { a }",
        "fn f(#[tracked] a: ()) -> f64 { 1.0 }",
        "fn f(#[tracked] #[tracked] a: f64) -> f64 { a }",
        "fn f(#[tracked(x)] a: f64, #[mica::tracked] b: f64) -> f64 { a * b }",
        "fn f(#[tracked] a: f64) { tape! { let l = a; } backward!(l); }",
    ] {
        assert_no_panic(source);
    }
}

#[test]
fn malformed_windows_and_walks() {
    for source in [
        "fn w() { #[tracked] let a = 1.0; tape! { let = ; } backward!(l); }",
        "fn w() { #[tracked] let a = 1.0; tape! { let l = a * a; } backward!(); }",
        "fn w() { #[tracked] let a = 1.0; tape! { let l = a * a; } backward!(l); gradient!(1 + 2); }",
        "fn w() { #[tracked] let a = 1.0; tape! { let l = a * a; } backward!(l); gradient!(); }",
        "fn w() { #[tracked] let a = 1.0; tape! { let l = a * a; } backward!(l, l); gradient!(a, a); }",
        "fn w() { #[tracked] let a = 1.0; tape! { let l = a * a; } backward!(l); backward!(l); }",
        "fn w() { #[tracked] let a = 1.0; tape! { tape! { let l = a; } } backward!(l); }",
        "fn w() { #[tracked] let a = 1.0; tape! { let l = a; backward!(l); } gradient!(a); }",
        "fn w() { #[tracked] let a = 1.0; tape! { #[tracked] let b = a; let l = b; } backward!(l); }",
        "fn w() { #[tracked] let a = 1.0; tape! { let (l, m) = (a, a); } backward!(l); }",
        "fn w() { #[tracked] let a; tape! { let l = a; } backward!(a); gradient!(a); }",
        "fn w() { gradient!(a); backward!(l); tape! {} }",
        "fn w() { tape![]; tape!(); backward![l]; gradient![a]; }",
        "fn w() { let f = || { tape! { let l = 1.0; } backward!(l); gradient!(a) }; }",
        "fn w() { async { #[tracked] let a = 1.0; tape! { let l = a; } backward!(l); gradient!(a) }; }",
        "fn w() -> f64 { #[tracked] let a = 1.0; tape! { let l = a; } backward!(l); \
         let v = vec![gradient!(a), gradient!(1 + 2), gradient!()]; v[0] }",
    ] {
        assert_no_panic(source);
    }
}

#[test]
fn unusual_token_shapes() {
    // what `macro_rules!` hands over: `$e:expr` arrives in a `None` group
    let hidden = |s: &str| TokenTree::Group(Group::new(Delimiter::None, tokens(s)));
    let mut body: Vec<TokenTree> = tokens("#[tracked] let a = 1.0; tape!")
        .into_iter()
        .collect();
    body.push(TokenTree::Group(Group::new(
        Delimiter::Brace,
        [ident("let"), ident("l"), punct('=', false), hidden("a * a")]
            .into_iter()
            .chain(std::iter::once(punct(';', false)))
            .collect(),
    )));
    body.extend(tokens("backward!"));
    body.push(TokenTree::Group(Group::new(
        Delimiter::Parenthesis,
        std::iter::once(hidden("l")).collect(),
    )));
    body.push(punct(';', false));
    let mut input: Vec<TokenTree> = tokens("fn w()").into_iter().collect();
    input.push(TokenTree::Group(Group::new(
        Delimiter::Brace,
        body.into_iter().collect(),
    )));
    let input: TokenStream = input.into_iter().collect();
    let report = check_all(&TokenStream::new(), &input);
    assert!(report.is_ok(), "{}", report.unwrap_err());
    assert_no_panic("fn r#tape(#[tracked] r#fn: f64) -> f64 { r#fn * 2.0 }");
    assert_no_panic("fn w() { #[tracked] let r#a = 1.0; r#tape! { let l = a; } backward!(r#l); }");
    // deep nesting, in both forms
    let deep = format!("{}a{}", "(".repeat(64), ")".repeat(64));
    let blocks = format!("{}a{}", "{ ".repeat(32), " }".repeat(32));
    assert_no_panic(&format!(
        "fn f(#[tracked] a: f64) -> f64 {{ let m = {deep} * {blocks}; m }}"
    ));
    assert_no_panic(&format!(
        "fn w() {{ #[tracked] let a = 1.0; tape! {{ let l = {deep} * {blocks}; }} \
         backward!(l); gradient!(a); }}"
    ));
}

/// A closure of an iterator chain that binds several names, and one whose
/// names clash with the places it reads: the names made for them follow
/// the names, not the order of a hash set, so every expansion is the same
/// (each program expanded many times over: two orders in two sets differ
/// half the time).
#[test]
fn closure_names_are_made_in_one_order() {
    for program in [
        "fn f(#[tracked] x: &[f64]) -> f64 { (0..x.len() / 2).map(|i| { \
         let (a, b) = (x[2 * i], x[2 * i + 1]); let t = b - a * a; let u = 1.0 - a; \
         100.0 * t * t + u * u }).sum() }",
        "fn f(#[tracked] x: &[f64]) -> f64 { let (a, b) = (1.0, 2.0); \
         x.iter().map(|v| { let a = v * b; let b = a + 1.0; a * b }).sum() }",
    ] {
        let input: TokenStream = program.parse().expect("a program");
        for _ in 0..16 {
            let report = check_all(&TokenStream::new(), &input);
            assert!(report.is_ok(), "{}", report.unwrap_err());
        }
    }
}
