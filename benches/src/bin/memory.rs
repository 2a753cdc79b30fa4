//! Peak heap per gradient call: for each program, the largest number of
//! heap bytes live at once during one call of the hand-written adjoint and
//! of Mica's `_backward` (inputs and slots are made before measuring).
//! Prints a Markdown table.

use mica_benches::calls;

#[global_allocator]
static ALLOC: dhat::Alloc = dhat::Alloc;

/// The peak of live heap bytes while `f` runs.
fn peak(f: &mut dyn FnMut()) -> u64 {
    let _profiler = dhat::Profiler::builder().testing().build();
    f();
    dhat::HeapStats::get().max_bytes as u64
}

fn bytes(n: u64) -> String {
    match n {
        0 => "0".to_string(),
        n if n < 10 * 1024 => format!("{n} B"),
        n if n < 10 * 1024 * 1024 => format!("{:.0} KiB", n as f64 / 1024.0),
        n => format!("{:.1} MiB", n as f64 / (1024.0 * 1024.0)),
    }
}

fn main() {
    println!("| program | hand-written | Mica `_backward` |");
    println!("| --- | ---: | ---: |");
    for mut c in calls::all() {
        let hand = peak(&mut c.hand);
        let mica = peak(&mut c.mica);
        println!("| {} | {} | {} |", c.name, bytes(hand), bytes(mica));
    }
}
