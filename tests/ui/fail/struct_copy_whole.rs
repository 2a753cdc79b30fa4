// A local copy of a tracked struct is followed field by field
// (`s.pos[0] += …`); passed on whole it is not, and Mica says so.
#[derive(Clone, mica::Knob)]
pub struct State {
    pub pos: [f64; 2],
    pub vel: [f64; 2],
}

fn energy(s: &State) -> f64 {
    s.vel[0] * s.vel[0] + s.vel[1] * s.vel[1]
}

#[mica::tape]
pub fn loss(#[tracked] s0: &State) -> f64 {
    let mut s = s0.clone();
    s.pos[0] += s.vel[0];
    energy(&s) + s.pos[0]
}

fn main() {}
