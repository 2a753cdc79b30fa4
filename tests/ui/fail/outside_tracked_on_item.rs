#[mica::tracked]
fn helper() {}

fn main() {}
