use mica::tape;

#[tape]
fn run(text: &str) -> Result<f64, std::num::ParseFloatError> {
    #[tracked]
    let a = 1.0_f64;
    tape! {
        let scale: f64 = text.parse()?;
        let y = a * scale;
    }
    backward!(y);
    Ok(gradient!(a))
}

fn main() {
    let _ = run("2");
}
