//! How this machine's speed moves while one process runs: one program's
//! hand-written adjoint and Mica's `_backward`, in alternating windows of
//! about 100 ms each, printed window by window with the time from the start.
//! Not part of `run.sh`: the notes quote it where they explain why
//! criterion's separate runs of each variant cannot settle a ratio here.
//!
//! `drift [PROGRAM] [WINDOWS]`: the first program whose title contains
//! `PROGRAM` (default `Helmholtz`), 40 windows of each variant by default.

use mica_benches::calls::{self, block, calibrate};
use mica_benches::time;
use std::time::{Duration, Instant};

/// About how long one window runs.
const WINDOW: Duration = Duration::from_millis(100);

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "Helmholtz".to_string());
    let windows: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(40);
    let Some(mut c) = calls::all().into_iter().find(|c| c.name.contains(&name)) else {
        eprintln!("drift: no program's title contains {name:?}");
        std::process::exit(1);
    };
    let (hand_reps, mica_reps) = (
        calibrate(&mut c.hand, WINDOW),
        calibrate(&mut c.mica, WINDOW),
    );
    println!("{}: time per call, windows of about 100 ms", c.name);
    println!();
    println!("| at | hand | Mica | Mica/hand |");
    println!("| ---: | ---: | ---: | ---: |");
    let start = Instant::now();
    for _ in 0..windows {
        let at = start.elapsed().as_secs_f64();
        let hand = block(&mut c.hand, hand_reps);
        let mica = block(&mut c.mica, mica_reps);
        println!(
            "| {at:.1} s | {} | {} | {:.2} |",
            time(hand),
            time(mica),
            mica / hand
        );
    }
}
