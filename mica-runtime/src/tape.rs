//! Storage for the values a loop's reverse reads, written without a call
//! inside the loop.
//!
//! A generated adjoint keeps, for each loop, a `Vec` of the values each
//! iteration's reverse needs. `Vec::push` has a path that grows the vector:
//! a call, and around a call the registers holding the loop's floats must be
//! saved, so a short loop pays for the call it never makes. When the number
//! of iterations of a nest of range loops is known before the nest runs, the
//! generated code makes room once and writes through a [`Writer`], whose
//! `push` only stores. Each run of a range loop takes its own slots from
//! the writer ([`Writer::run`]), counted from the first: the store's bound
//! is then the loop's own count, and the compiler drops the test. Inside a fused loop, whose reverse pops each
//! iteration's items at its end, one writer made before that loop serves
//! every iteration: it pushes into the room and pops back out. A loop run
//! once per sweep over a range with a constant bound keeps its tape on the
//! stack instead, in a [`StackTape`], whose move to the heap past that
//! bound is the call kept out of the loop.

use arrayvec::ArrayVec;
use std::ptr::NonNull;

/// The number of items a range yields (`usize::MAX` if it does not fit).
///
/// `a..b` and `a..=b` of integers tell their length exactly.
#[doc(hidden)]
#[inline(always)]
pub fn trip<I: Iterator>(range: &I) -> usize {
    match range.size_hint() {
        (_, Some(n)) => n,
        (n, None) => n,
    }
}

/// The iterations of a nest in one run of its outer loop over `range`,
/// `per_run` being the iterations in one of its iterations: their product,
/// without evaluating `per_run` if `range` is empty.
#[doc(hidden)]
#[inline(always)]
pub fn room_times<I: Iterator>(range: &I, per_run: impl FnOnce() -> usize) -> usize {
    match trip(range) {
        0 => 0,
        n => n.saturating_mul(per_run()),
    }
}

/// The iterations of a nest in one run of its outer loop over `range`,
/// where the inner ranges read the outer loop's variable: `per_run` of each
/// value it takes, summed.
#[doc(hidden)]
#[inline(always)]
pub fn room_each<I: Iterator>(range: I, per_run: impl FnMut(I::Item) -> usize) -> usize {
    range.map(per_run).fold(0, usize::saturating_add)
}

/// The most [`Writer::within`] makes ahead of what a run asks for: 256 KiB.
#[doc(hidden)]
pub const WITHIN_BYTES: usize = 1 << 18;

/// Pushes onto a tape into room made beforehand.
///
/// `Writer::new(tape, room)` makes room for `room` more items; `push`
/// stores an item into it. The items become part of the tape when the
/// writer is dropped. The generated code sizes `room` as the number of
/// iterations the loop nest will run, counted from its ranges where the
/// nest starts ([`trip`], [`room_times`], [`room_each`]), with one push per
/// iteration: `push` never finds the room full.
/// Were it to, it would panic rather than grow, which is what keeps `push`
/// free of calls.
///
/// Inside a *fused* loop, whose reverse runs at the end of each of its
/// iterations and pops there everything the iteration pushed, one writer
/// made before that loop, with `room` the pushes of one iteration, serves
/// every iteration: its reverse pops back out of the writer with `pop`, and
/// each iteration stores into the same room without making it again.
#[doc(hidden)]
pub struct Writer<'a, T> {
    tape: &'a mut Vec<T>,
    /// The first spare slot of `tape`, where the writer's items start.
    spare: NonNull<T>,
    /// The spare slots after `spare`: how many items fit.
    room: usize,
    written: usize,
}

impl<'a, T> Writer<'a, T> {
    /// Makes room for `room` more items on `tape`.
    #[inline(always)]
    pub fn new(tape: &'a mut Vec<T>, room: usize) -> Self {
        tape.reserve(room);
        let len = tape.len();
        let room = tape.capacity() - len;
        // SAFETY: `len` is within the allocation (at most its capacity), so
        // the offset stays in it or one past its end; `as_mut_ptr` is never
        // null, and the pointer it gives stays valid while nothing but
        // `set_len` touches the vector (the writer borrows it mutably).
        let spare = unsafe { NonNull::new_unchecked(tape.as_mut_ptr().add(len)) };
        Writer {
            tape,
            spare,
            room,
            written: 0,
        }
    }

    /// Makes room for `room` more items on `tape`, for a loop run once in
    /// each of `runs` iterations of a loop around it: where the tape has
    /// not the room, it is made for all the runs at once (each run taking
    /// as much as this one), so that the tape grows once for the whole
    /// nest rather than doubling, and copying itself, as the runs push.
    ///
    /// A guess, so it is bounded: runs may be shorter than this one, so at
    /// most [`WITHIN_BYTES`] are made ahead (a tape that needs more grows
    /// from there as [`Writer::new`]'s does).
    #[inline(always)]
    pub fn within(tape: &'a mut Vec<T>, room: usize, runs: usize) -> Self {
        if tape.capacity() - tape.len() < room {
            let ahead = WITHIN_BYTES / std::mem::size_of::<T>().max(1);
            tape.reserve(room.saturating_mul(runs).min(ahead).max(room));
        }
        Self::new(tape, room)
    }

    /// Stores `item` after the items pushed so far.
    ///
    /// # Panics
    ///
    /// If the room made by [`Writer::new`] is full.
    #[inline(always)]
    pub fn push(&mut self, item: T) {
        if self.written >= self.room {
            full();
        }
        // SAFETY: `written < room`, so the slot is one of the spare slots
        // `new` found, which nothing else reads or writes while the writer
        // lives; it holds no item (never written, or popped since).
        unsafe { self.spare.as_ptr().add(self.written).write(item) };
        self.written += 1;
    }

    /// Stores `item` after the items pushed so far, making more room first
    /// if the room is full: for a loop whose number of iterations is not
    /// known before it runs. The room is made by a call kept out of the
    /// loop's code ([`grow`]), which takes the writer's counts and gives
    /// back new ones, so that the writer itself stays in registers.
    #[inline(always)]
    pub fn push_grow(&mut self, item: T) {
        if self.written >= self.room {
            (self.spare, self.room) = grow(&mut *self.tape, self.written);
        }
        // SAFETY: `written < room` now, so the slot is one of the spare
        // slots `new` or `grow` found, which nothing else reads or writes
        // while the writer lives; it holds no item (never written, or
        // popped since).
        unsafe { self.spare.as_ptr().add(self.written).write(item) };
        self.written += 1;
    }

    /// The room for one run of a range loop of `n` iterations, one push
    /// each: slots counted from the first, whose `push` the compiler can
    /// prove in bounds from the loop's own count, so the loop stores with no
    /// test at all. The items join the writer's when the run is dropped.
    ///
    /// # Panics
    ///
    /// If the room made by [`Writer::new`] has fewer than `n` slots left.
    #[inline(always)]
    pub fn run(&mut self, n: usize) -> Run<'_, T> {
        if self.room - self.written < n {
            full();
        }
        // SAFETY: the `n` slots from `written` on are spare slots of the
        // tape (`written + n <= room`) that hold no item: nothing else
        // reads or writes them while the run borrows the writer.
        let slots = unsafe {
            std::slice::from_raw_parts_mut(
                self.spare
                    .as_ptr()
                    .add(self.written)
                    .cast::<std::mem::MaybeUninit<T>>(),
                n,
            )
        };
        Run {
            written: &mut self.written,
            slots,
            filled: 0,
        }
    }

    /// Takes back the item pushed last and not yet popped, if any (the
    /// tape's own items are not the writer's).
    #[inline(always)]
    pub fn pop(&mut self) -> Option<T> {
        self.written = self.written.checked_sub(1)?;
        // SAFETY: the slots below the old `written` were each written by
        // `push`, within the room, and not read since; the one at the new
        // `written` is read once here and counts as empty from now on (a
        // later `push` writes it again, `drop` leaves it out of the tape).
        Some(unsafe { self.spare.as_ptr().add(self.written).read() })
    }
}

/// One run of a range loop writing into a [`Writer`]'s room: see
/// [`Writer::run`].
#[doc(hidden)]
pub struct Run<'w, T> {
    written: &'w mut usize,
    slots: &'w mut [std::mem::MaybeUninit<T>],
    /// the slots written, from the first
    filled: usize,
}

impl<T> Run<'_, T> {
    /// Stores `item` after the items pushed so far.
    ///
    /// # Panics
    ///
    /// If the run's `n` slots are full.
    #[inline(always)]
    pub fn push(&mut self, item: T) {
        self.slots[self.filled].write(item);
        self.filled += 1;
    }
}

impl<T> Drop for Run<'_, T> {
    #[inline(always)]
    fn drop(&mut self) {
        // the first `filled` slots hold items: they are the writer's now
        *self.written += self.filled;
    }
}

/// More room after a writer's `written` items, out of the loop's code (see
/// [`Writer::push_grow`]): the tape grows to hold at least twice as many,
/// its items and the writer's kept in order. Gives the writer's new first
/// spare slot and room.
#[cold]
#[inline(never)]
// the length set last is shorter than before the `reserve`: no slot it
// counts is uninitialised
#[allow(clippy::uninit_vec)]
fn grow<T>(tape: &mut Vec<T>, written: usize) -> (NonNull<T>, usize) {
    let len = tape.len();
    // SAFETY: the `written` slots after the tape's length hold items the
    // writer pushed and has not popped (see `Drop for Writer`), within the
    // capacity: counted as the tape's for the move, they are kept in order.
    unsafe { tape.set_len(len + written) };
    tape.reserve(written.max(8));
    // SAFETY: the items past `len` are the writer's again; `len` is at most
    // the length just set.
    unsafe { tape.set_len(len) };
    let room = tape.capacity() - len;
    // SAFETY: `len` is within the allocation, as in `Writer::new`.
    let spare = unsafe { NonNull::new_unchecked(tape.as_mut_ptr().add(len)) };
    (spare, room)
}

/// The panic of a push into a full room, kept out of `push`'s code.
#[cold]
#[inline(never)]
#[track_caller]
fn full() -> ! {
    panic!("mica: a loop pushed more items than the room made for it")
}

impl<T> Drop for Writer<'_, T> {
    #[inline(always)]
    fn drop(&mut self) {
        let len = self.tape.len() + self.written;
        // SAFETY: the first `written` slots after the tape's length hold
        // items `push` wrote and `pop` has not taken (`pop` lowers `written`
        // past each slot it reads), and nothing else touched the tape while
        // the writer borrowed it; `written` never exceeds the room, which is
        // the spare capacity.
        unsafe { self.tape.set_len(len) }
    }
}

/// A loop's tape held in place: the first `CAP` items on the stack, the
/// rest on the heap.
///
/// The generated code keeps one for a loop that runs once per sweep over a
/// range with a constant bound `CAP` (at most 1,024): usually every item
/// fits on the stack, and a longer run moves on to the heap instead of
/// failing. `push` and `pop` only compare lengths on the way; the move to the
/// heap is a call kept out of the loop's code.
#[doc(hidden)]
pub struct StackTape<T, const CAP: usize> {
    inline: ArrayVec<T, CAP>,
    /// the items after the first `CAP`, oldest first; empty unless `inline`
    /// is full
    spill: Vec<T>,
}

impl<T, const CAP: usize> StackTape<T, CAP> {
    /// An empty tape.
    #[inline(always)]
    pub fn new() -> Self {
        StackTape {
            inline: ArrayVec::new(),
            spill: Vec::new(),
        }
    }

    /// Stores `item` after the items pushed so far.
    #[inline(always)]
    pub fn push(&mut self, item: T) {
        if let Err(full) = self.inline.try_push(item) {
            spill::<T, CAP>(&mut self.spill, full.element());
        }
    }

    /// Takes back the item pushed last, if any.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<T> {
        if self.spill.is_empty() {
            self.inline.pop()
        } else {
            self.spill.pop()
        }
    }
}

impl<T, const CAP: usize> Default for StackTape<T, CAP> {
    fn default() -> Self {
        Self::new()
    }
}

/// Pushes onto the heap part of a [`StackTape`], out of the loop's code.
/// The first push there makes room for as many items as the stack holds, so
/// a run twice the stack's length allocates once.
#[cold]
#[inline(never)]
fn spill<T, const CAP: usize>(heap: &mut Vec<T>, item: T) {
    if heap.capacity() == 0 {
        heap.reserve(CAP);
    }
    heap.push(item);
}

/// A tape whose last items a loop's reverse takes back at once, last
/// first: the items of one run of the loop, one per iteration, walked
/// together with the loop's range run backward (`zip_back`, or
/// [`zip_back_range`](crate::walk::zip_back_range) for an `a..b` range). Taken back by
/// count rather than one `pop` per iteration, the reverse loop reads them
/// in sequence with no check per item, and can be vectorised.
#[doc(hidden)]
pub trait Rewind {
    type Item;
    /// The items taken back, last first.
    type Back<'a>: Iterator<Item = Self::Item> + crate::walk::Positional
    where
        Self: 'a;
    /// Takes back the last `n` items.
    ///
    /// # Panics
    ///
    /// If it holds fewer: a loop's reverse finds one item for each of its
    /// forward run's iterations, so the generated code never asks for more.
    fn back(&mut self, n: usize) -> Self::Back<'_>;
}

/// The panic of a reverse that finds fewer items than iterations, kept out
/// of the loop's code (it cannot happen in the code Mica writes; a silent
/// shorter walk would be a wrong slope).
#[cold]
#[inline(never)]
#[track_caller]
fn short() -> ! {
    panic!("mica: a loop's reverse found fewer kept items than the loop ran iterations")
}

impl<T> Rewind for Vec<T> {
    type Item = T;
    type Back<'a>
        = TakenBack<'a, T>
    where
        T: 'a;
    #[inline(always)]
    fn back(&mut self, n: usize) -> TakenBack<'_, T> {
        let len = self.len();
        if len < n {
            short();
        }
        let from = len - n;
        // SAFETY: `from` is at most the length; the items past it are the
        // iterator's from now on (read or dropped by it once), and the
        // vector, borrowed mutably while it lives, no longer counts them
        unsafe { self.set_len(from) };
        TakenBack::new(self.as_mut_ptr(), from, n)
    }
}

impl<'w, T> Rewind for Writer<'w, T> {
    type Item = T;
    type Back<'a>
        = TakenBack<'a, T>
    where
        Self: 'a;
    #[inline(always)]
    fn back(&mut self, n: usize) -> TakenBack<'_, T> {
        if self.written < n {
            short();
        }
        self.written -= n;
        TakenBack::new(self.spare.as_ptr(), self.written, n)
    }
}

impl<T, const CAP: usize> Rewind for StackTape<T, CAP> {
    type Item = T;
    type Back<'a>
        = StackBack<'a, T>
    where
        T: 'a;
    #[inline(always)]
    fn back(&mut self, n: usize) -> StackBack<'_, T> {
        let len = self.inline.len();
        if len + self.spill.len() < n {
            short();
        }
        // the heap holds the newest items: from there first
        let spill = self.spill.back(n.min(self.spill.len()));
        let from = len - (n - spill.left);
        // SAFETY: as for a `Vec` tape: `from` is at most the length, and
        // the items past it are the iterator's from now on
        unsafe { self.inline.set_len(from) };
        let inline = TakenBack::new(self.inline.as_mut_ptr(), from, len - from);
        StackBack { spill, inline }
    }
}

/// Items taken back from a [`StackTape`], last first: those on the heap,
/// then those in place.
#[doc(hidden)]
pub struct StackBack<'a, T> {
    pub(crate) spill: TakenBack<'a, T>,
    pub(crate) inline: TakenBack<'a, T>,
}

impl<T> Iterator for StackBack<'_, T> {
    type Item = T;
    #[inline(always)]
    fn next(&mut self) -> Option<T> {
        if self.spill.left > 0 {
            self.spill.next()
        } else {
            self.inline.next()
        }
    }
    #[inline(always)]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.spill.left + self.inline.left;
        (n, Some(n))
    }
}

/// Items taken back from a tape or a [`Writer`], last first: they are no
/// longer its (its length or `written` count stops below them), and the
/// ones not read are dropped with this.
#[doc(hidden)]
pub struct TakenBack<'a, T> {
    pub(crate) spare: NonNull<T>,
    /// the slot of the oldest item taken back
    pub(crate) from: usize,
    /// the items not yet read: the slots `from..from + left`
    pub(crate) left: usize,
    owner: core::marker::PhantomData<&'a mut T>,
}

impl<T> TakenBack<'_, T> {
    /// The items in the slots `from..from + left` of the buffer at
    /// `buffer` (a tape's or a writer's), which its owner no longer counts.
    #[inline(always)]
    fn new(buffer: *mut T, from: usize, left: usize) -> Self {
        TakenBack {
            // a vector's buffer is never null (dangling when unallocated)
            spare: NonNull::new(buffer).unwrap_or(NonNull::dangling()),
            from,
            left,
            owner: core::marker::PhantomData,
        }
    }

    /// Reads the oldest item not yet read, for a walk first to last
    /// ([`zip_up_range`](crate::walk::zip_up_range)).
    ///
    /// # Safety
    ///
    /// An item is left to read.
    #[inline(always)]
    pub(crate) unsafe fn take_front(&mut self) -> T {
        // SAFETY: the slot `from` is the first of `from..from + left`, which
        // hold unread items (`left > 0`, the caller's promise); from now on
        // neither `from` nor `left` covers it
        let item = unsafe { self.spare.as_ptr().add(self.from).read() };
        self.from += 1;
        self.left -= 1;
        item
    }
}

impl<T> Iterator for TakenBack<'_, T> {
    type Item = T;
    #[inline(always)]
    fn next(&mut self) -> Option<T> {
        self.left = self.left.checked_sub(1)?;
        // SAFETY: the slots `from..from + left` (before this step) hold
        // items `push` wrote that nothing has read: `back` took them from
        // the writer, whose mutable borrow this holds, so nothing else
        // reads or writes them. The one read here counts as empty from
        // now on (`left` no longer covers it). (A tape's items: the same,
        // `back` having set its length below them.)
        Some(unsafe { self.spare.as_ptr().add(self.from + self.left).read() })
    }
    #[inline(always)]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<T> Drop for TakenBack<'_, T> {
    #[inline(always)]
    fn drop(&mut self) {
        for k in 0..self.left {
            // SAFETY: as in `next`, the slots `from..from + left` hold
            // unread items no one else owns; each is dropped once.
            unsafe { self.spare.as_ptr().add(self.from + k).drop_in_place() };
        }
    }
}

/// A loop's range, run backward, with the items its forward run pushed
/// (one per iteration), last first: `for (i, (a, b)) in zip_back(rev(range),
/// &mut tape)`.
#[doc(hidden)]
#[inline(always)]
pub fn zip_back<I: Iterator, R: Rewind + ?Sized>(
    range: I,
    tape: &mut R,
) -> core::iter::Zip<I, R::Back<'_>> {
    let n = trip(&range);
    range.zip(tape.back(n))
}

#[cfg(test)]
mod tests {
    use super::{room_each, room_times, trip, zip_back, StackTape, Writer, WITHIN_BYTES};

    #[test]
    fn a_growing_writer_keeps_its_items_and_the_tapes_in_order() {
        // a tape with items of its own, a writer with no room yet
        let mut tape: Vec<(f64, usize)> = vec![(-1.0, 0), (-2.0, 1)];
        tape.shrink_to_fit();
        {
            let mut w = Writer::new(&mut tape, 0);
            for k in 0..5 {
                w.push_grow((k as f64, k));
            }
            assert_eq!(w.pop(), Some((4.0, 4)));
            // a run of pushes that grows the tape several times
            for k in 5..300 {
                w.push_grow((k as f64, k));
            }
            for k in (250..300).rev() {
                assert_eq!(w.pop(), Some((k as f64, k)));
            }
        }
        assert_eq!(tape.len(), 2 + 4 + 245);
        assert_eq!(tape[..3], [(-1.0, 0), (-2.0, 1), (0.0, 0)]);
        let items: Vec<usize> = tape[2..].iter().map(|&(_, k)| k).collect();
        let expected: Vec<usize> = (0..4).chain(5..250).collect();
        assert_eq!(items, expected);
        // pushed and popped back to nothing: the tape keeps its own
        {
            let mut w = Writer::new(&mut tape, 0);
            for k in 0..1000 {
                w.push_grow((0.5, k));
            }
            for k in (0..1000).rev() {
                assert_eq!(w.pop(), Some((0.5, k)));
            }
            assert_eq!(w.pop(), None);
        }
        assert_eq!(tape.len(), 251);
    }

    #[test]
    fn a_growing_writer_frees_the_items_it_holds_once() {
        let item = std::rc::Rc::new(());
        let mut tape = Vec::new();
        {
            let mut w = Writer::new(&mut tape, 1);
            for _ in 0..40 {
                w.push_grow(item.clone());
            }
            drop(w.pop());
        }
        assert_eq!(std::rc::Rc::strong_count(&item), 40);
        drop(tape);
        assert_eq!(std::rc::Rc::strong_count(&item), 1);
    }

    #[test]
    fn a_stack_tape_pops_in_reverse_across_the_move_to_the_heap() {
        let mut tape = StackTape::<(f64, usize), 3>::new();
        assert_eq!(tape.pop(), None);
        for k in 0..7 {
            tape.push((k as f64, k));
        }
        assert_eq!(tape.spill.len(), 4);
        // pushes after pops land where the pops left room
        assert_eq!(tape.pop(), Some((6.0, 6)));
        tape.push((9.0, 9));
        let popped: Vec<usize> = std::iter::from_fn(|| tape.pop()).map(|(_, k)| k).collect();
        assert_eq!(popped, [9, 5, 4, 3, 2, 1, 0]);
        tape.push((1.0, 1));
        assert_eq!(tape.pop(), Some((1.0, 1)));
        assert_eq!(tape.pop(), None);
        let mut none = StackTape::<f64, 0>::new();
        none.push(2.0);
        assert_eq!((none.pop(), none.pop()), (Some(2.0), None));
    }

    #[test]
    fn a_stack_tape_frees_the_items_it_still_holds() {
        let item = std::rc::Rc::new(());
        {
            let mut tape = StackTape::<std::rc::Rc<()>, 2>::new();
            for _ in 0..5 {
                tape.push(item.clone());
            }
            assert_eq!(std::rc::Rc::strong_count(&item), 6);
            drop(tape.pop());
            assert_eq!(std::rc::Rc::strong_count(&item), 5);
        }
        assert_eq!(std::rc::Rc::strong_count(&item), 1);
    }

    #[test]
    fn trip_counts_ranges() {
        assert_eq!(trip(&(0..5usize)), 5);
        assert_eq!(trip(&(3..3usize)), 0);
        let (hi, lo) = (5usize, 2usize);
        assert_eq!(trip(&(hi..lo)), 0);
        assert_eq!(trip(&(1..=4i32)), 4);
        assert_eq!(trip(&(-3..2i64)), 5);
        assert_eq!(trip(&(0..=usize::MAX)), usize::MAX);
    }

    #[test]
    fn rooms_count_a_nest_without_evaluating_what_it_skips() {
        let (n, d) = (4usize, 3usize);
        assert_eq!(room_times(&(0..n), || trip(&(0..d))), 12);
        // a triangle: Σ_{a<d} (d − a − 1)
        assert_eq!(room_each(0..d, |a| trip(&(a + 1..d))), 3);
        assert_eq!(
            room_times(&(0..n), || room_each(0..d, |a| trip(&(0..a + 1)))),
            24
        );
        // an empty outer range never asks for its inner one (`d - 1` would
        // overflow)
        let d = 0usize;
        assert_eq!(room_times(&(0..d), || trip(&(0..d - 1))), 0);
        assert_eq!(room_each(0..d, |_| trip(&(0..d - 1))), 0);
        assert_eq!(room_times(&(0..usize::MAX), || 2), usize::MAX);
    }

    #[test]
    fn written_items_follow_the_tape() {
        let mut tape = vec![(1.0, 0usize)];
        {
            let mut w = Writer::new(&mut tape, 3);
            w.push((2.0, 1));
            w.push((3.0, 2));
        }
        assert_eq!(tape, [(1.0, 0), (2.0, 1), (3.0, 2)]);
        assert_eq!(tape.pop(), Some((3.0, 2)));
        drop(Writer::new(&mut tape, 0));
        assert_eq!(tape, [(1.0, 0), (2.0, 1)]);
    }

    #[test]
    fn a_writer_within_a_loop_makes_room_for_all_its_runs_once() {
        let mut tape: Vec<f64> = Vec::new();
        let mut sizes = Vec::new();
        for run in 0..20 {
            let mut w = Writer::within(&mut tape, 10, 20);
            for k in 0..10 {
                w.push(f64::from(run * 10 + k));
            }
            drop(w);
            sizes.push(tape.capacity());
        }
        // one allocation, for the 200 items of the 20 runs
        assert!(
            sizes.iter().all(|&c| c == sizes[0] && c >= 200),
            "{sizes:?}"
        );
        assert!(tape.iter().enumerate().all(|(k, &v)| v == k as f64));
        // longer runs than the first: the tape grows, as `new`'s does
        let mut w = Writer::within(&mut tape, 500, 2);
        for k in 0..500 {
            w.push(f64::from(k));
        }
        drop(w);
        assert_eq!(tape.len(), 700);
        assert_eq!(tape[699], 499.0);
        // no runs counted (a loop around that does not run): room for this
        // run alone
        let mut other: Vec<f64> = Vec::new();
        let mut w = Writer::within(&mut other, 3, 0);
        for k in 0..3 {
            w.push(f64::from(k));
        }
        drop(w);
        assert_eq!(other, [0.0, 1.0, 2.0]);
        // a count too large to be taken at its word: at most
        // `WITHIN_BYTES` are made ahead, or the run's own room if larger
        let mut small: Vec<u8> = Vec::new();
        drop(Writer::within(&mut small, 2, usize::MAX));
        assert!((2..=WITHIN_BYTES).contains(&small.capacity()));
        let mut large: Vec<u8> = Vec::new();
        drop(Writer::within(&mut large, WITHIN_BYTES + 1, usize::MAX));
        assert!(large.capacity() > WITHIN_BYTES && large.capacity() < 2 * WITHIN_BYTES);
    }

    #[test]
    fn items_that_own_memory_are_kept_and_freed() {
        let mut tape: Vec<Vec<f64>> = Vec::new();
        let mut w = Writer::new(&mut tape, 2);
        w.push(vec![1.0; 3]);
        w.push(vec![2.0]);
        drop(w);
        assert_eq!(tape, [vec![1.0; 3], vec![2.0]]);
    }

    #[test]
    fn a_full_writer_panics_and_keeps_what_it_wrote() {
        let mut tape: Vec<f64> = Vec::with_capacity(1);
        let full = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut w = Writer::new(&mut tape, 1);
            let room = w.room;
            for k in 0..=room {
                w.push(k as f64);
            }
        }));
        assert!(full.is_err());
        let room = tape.capacity();
        assert_eq!(tape.len(), room);
        assert!(tape.iter().enumerate().all(|(k, &v)| v == k as f64));
    }

    #[test]
    fn runs_write_in_order_and_join_the_writer_where_they_end() {
        let mut tape: Vec<(f64, usize)> = vec![(9.0, 9)];
        {
            let mut w = Writer::new(&mut tape, 5);
            w.push((0.5, 0));
            for round in 0..3 {
                {
                    let mut run = w.run(4);
                    for k in 0..4 {
                        run.push((f64::from(round), k));
                    }
                }
                for k in (0..4).rev() {
                    assert_eq!(w.pop(), Some((f64::from(round), k)));
                }
            }
            // a run that stops short keeps what it wrote, no more
            let mut run = w.run(3);
            run.push((1.5, 1));
            drop(run);
            // an empty run
            drop(w.run(0));
        }
        assert_eq!(tape, [(9.0, 9), (0.5, 0), (1.5, 1)]);
        // items that own memory
        let mut tape: Vec<Vec<f64>> = Vec::new();
        let mut w = Writer::new(&mut tape, 2);
        let mut run = w.run(2);
        run.push(vec![1.0; 3]);
        run.push(vec![2.0]);
        drop(run);
        drop(w);
        assert_eq!(tape, [vec![1.0; 3], vec![2.0]]);
    }

    #[test]
    fn a_run_past_the_room_or_its_own_slots_panics_and_keeps_what_it_wrote() {
        let mut tape: Vec<f64> = Vec::with_capacity(2);
        let too_long = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut w = Writer::new(&mut tape, 2);
            let room = w.room;
            drop(w.run(room + 1));
        }));
        assert!(too_long.is_err());
        assert!(tape.is_empty());
        let full = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut w = Writer::new(&mut tape, 2);
            let mut run = w.run(2);
            for k in 0..3 {
                run.push(f64::from(k));
            }
        }));
        assert!(full.is_err());
        assert_eq!(tape, [0.0, 1.0]);
    }

    #[test]
    fn a_writer_pops_what_it_pushed_last_first_iteration_after_iteration() {
        let mut tape: Vec<(f64, usize)> = vec![(9.0, 9)];
        {
            let mut s = Writer::new(&mut tape, 3);
            for round in 0..4 {
                for k in 0..3 {
                    s.push((f64::from(round), k));
                }
                for k in (0..3).rev() {
                    assert_eq!(s.pop(), Some((f64::from(round), k)));
                }
                assert_eq!(s.pop(), None, "the tape's own items are not the writer's");
            }
            s.push((7.0, 7));
        }
        // what was pushed and not popped joins the tape
        assert_eq!(tape, [(9.0, 9), (7.0, 7)]);
    }

    #[test]
    fn a_writer_moves_popped_items_out_once_and_keeps_the_rest() {
        let mut tape: Vec<Vec<f64>> = Vec::new();
        let mut s = Writer::new(&mut tape, 2);
        s.push(vec![1.0; 3]);
        s.push(vec![2.0]);
        assert_eq!(s.pop(), Some(vec![2.0]));
        s.push(vec![3.0, 4.0]);
        assert_eq!(s.pop(), Some(vec![3.0, 4.0]));
        drop(s);
        assert_eq!(tape, [vec![1.0; 3]]);
    }

    #[test]
    fn a_reverse_takes_back_one_run_of_items_last_first() {
        // a tape: the items of the run after the older ones
        let mut tape: Vec<(f64, usize)> = vec![(9.0, 9), (0.0, 0), (1.0, 1), (2.0, 2)];
        let walked: Vec<(usize, usize)> = zip_back((0..3usize).rev(), &mut tape)
            .map(|(i, (_, k))| (i, k))
            .collect();
        assert_eq!(walked, [(2, 2), (1, 1), (0, 0)]);
        assert_eq!(tape, [(9.0, 9)]);
        // a writer, round after round, leaving its tape's items alone
        let mut tape: Vec<Vec<f64>> = vec![vec![9.0]];
        {
            let mut w = Writer::new(&mut tape, 3);
            for round in 0..3 {
                for k in 0..3 {
                    w.push(vec![f64::from(round), k as f64]);
                }
                let walked: Vec<(usize, Vec<f64>)> = zip_back((0..3usize).rev(), &mut w).collect();
                let want: Vec<(usize, Vec<f64>)> = (0..3usize)
                    .rev()
                    .map(|k| (k, vec![f64::from(round), k as f64]))
                    .collect();
                assert_eq!(walked, want);
            }
            assert_eq!(w.pop(), None);
        }
        assert_eq!(tape, [vec![9.0]]);
        // a stack tape, across the move to the heap
        let mut tape = StackTape::<usize, 2>::new();
        for k in 0..5 {
            tape.push(k);
        }
        let walked: Vec<(usize, usize)> = zip_back((1..4usize).rev(), &mut tape).collect();
        assert_eq!(walked, [(3, 4), (2, 3), (1, 2)]);
        let walked: Vec<(usize, usize)> = zip_back((0..2usize).rev(), &mut tape).collect();
        assert_eq!(walked, [(1, 1), (0, 0)]);
        assert_eq!(tape.pop(), None);
        // a run across the heap and the stack, and one left on the stack
        for k in 0..5 {
            tape.push(k);
        }
        let walked: Vec<(usize, usize)> = zip_back((0..4usize).rev(), &mut tape).collect();
        assert_eq!(walked, [(3, 4), (2, 3), (1, 2), (0, 1)]);
        tape.push(7);
        assert_eq!(
            (tape.pop(), tape.pop(), tape.pop()),
            (Some(7), Some(0), None)
        );
        // owned items across both, some left unread
        let item = std::rc::Rc::new(());
        let mut tape = StackTape::<std::rc::Rc<()>, 2>::new();
        for _ in 0..5 {
            tape.push(item.clone());
        }
        let mut back = zip_back((0..4usize).rev(), &mut tape);
        drop(back.next());
        drop(back);
        assert_eq!(std::rc::Rc::strong_count(&item), 2);
        drop(tape);
        assert_eq!(std::rc::Rc::strong_count(&item), 1);
    }

    #[test]
    fn a_reverse_that_finds_fewer_items_than_iterations_panics() {
        let short =
            |f: &dyn Fn()| std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err();
        assert!(short(&|| {
            let mut tape = vec![1.0];
            zip_back((0..2usize).rev(), &mut tape).count();
        }));
        assert!(short(&|| {
            let mut tape = StackTape::<f64, 1>::new();
            tape.push(1.0);
            tape.push(2.0);
            zip_back((0..3usize).rev(), &mut tape).count();
        }));
        assert!(short(&|| {
            let mut tape = vec![0.0];
            let mut w = Writer::new(&mut tape, 2);
            w.push(1.0);
            // the tape's own item is not the writer's
            zip_back((0..2usize).rev(), &mut w).count();
        }));
    }

    #[test]
    fn items_taken_back_and_not_read_are_freed_once() {
        let item = std::rc::Rc::new(());
        let mut tape = Vec::new();
        {
            let mut w = Writer::new(&mut tape, 4);
            for _ in 0..4 {
                w.push(item.clone());
            }
            let mut back = zip_back((0..3usize).rev(), &mut w);
            drop(back.next());
            assert_eq!(std::rc::Rc::strong_count(&item), 4);
            drop(back);
            // the two unread are freed, the fourth item stays the writer's
            assert_eq!(std::rc::Rc::strong_count(&item), 2);
        }
        assert_eq!(tape.len(), 1);
        drop(tape);
        assert_eq!(std::rc::Rc::strong_count(&item), 1);
        // from a tape itself
        let mut tape = vec![item.clone(), item.clone(), item.clone()];
        let mut back = zip_back((0..2usize).rev(), &mut tape);
        drop(back.next());
        drop(back);
        assert_eq!(tape.len(), 1);
        assert_eq!(std::rc::Rc::strong_count(&item), 2);
        tape.push(item.clone());
        assert_eq!(std::rc::Rc::strong_count(&item), 3);
        drop(tape);
        assert_eq!(std::rc::Rc::strong_count(&item), 1);
    }
}
