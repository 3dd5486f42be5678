//! The WebAssembly core's allocator: small blocks from size-class free lists, everything else
//! from an inner allocator (Talc).
//!
//! Owns: the `GlobalAlloc` of the single-threaded WASM module. Why: a decision makes ~40–110
//! short-lived allocations (words, argv lists, details, the record), and Talc's general
//! allocate/free (a search by bins, splitting and coalescing) was ~13 % of a decision's time in
//! WebAssembly. Here a block of at most [`MAX_SMALL`] bytes costs a free-list pop or a bump of
//! a pointer, and freeing it a push: −9 to −12 % per typical decision (same-process A/B of two
//! builds, `bench/README.md` "Session 9").
//!
//! How: eight classes of 16, 32, …, 2048 bytes (a request takes the smallest class that holds
//! it). Each class keeps a LIFO list of its freed blocks, linked through their first word;
//! a class with no free block carves one from the current 64 KB chunk, which comes from the
//! inner allocator (16-aligned; every class size is a multiple of 16, so every block is
//! 16-aligned). Chunks are never returned: freed small blocks stay in their class for reuse,
//! so memory is bounded by each class's peak of live blocks (a WebAssembly memory never
//! shrinks anyway). Requests above [`MAX_SMALL`] bytes or aligned above 16 go to the inner
//! allocator unchanged.
//!
//! This crate holds the product's only `unsafe` code (the main crate forbids it); its tests
//! run natively over the system allocator with random allocation sequences that check
//! contents, alignment and overlap.
#![no_std]
#![deny(unsafe_op_in_unsafe_fn)]

use core::alloc::{GlobalAlloc, Layout};
use core::cell::UnsafeCell;
use core::ptr;

/// The largest request served from a size class.
pub const MAX_SMALL: usize = 2048;
/// The smallest class: two words on wasm32, 16 bytes for alignment.
const MIN_SHIFT: u32 = 4;
/// Classes 16 << 0 … 16 << 7 (= 2048).
const CLASSES: usize = 8;
/// The unit taken from the inner allocator for carving small blocks.
pub const CHUNK: usize = 64 * 1024;
/// Alignment of every chunk and hence of every small block.
const ALIGN: usize = 16;

struct Classes {
    /// Head of each class's free list (null: empty).
    free: [*mut u8; CLASSES],
    /// The unused rest of the current chunk: `[bump, end)`.
    bump: usize,
    end: usize,
}

/// Size-class free lists over `A`. Not thread-safe: see the `Sync` impl.
pub struct SizeClasses<A> {
    inner: A,
    classes: UnsafeCell<Classes>,
}

// SAFETY: only where there is a single thread (WebAssembly without the atomics feature: no
// threads, no re-entrant allocation), so `classes` is never accessed concurrently.
#[cfg(all(target_family = "wasm", not(target_feature = "atomics")))]
unsafe impl<A: Sync> Sync for SizeClasses<A> {}

impl<A> SizeClasses<A> {
    pub const fn new(inner: A) -> Self {
        SizeClasses {
            inner,
            classes: UnsafeCell::new(Classes {
                free: [ptr::null_mut(); CLASSES],
                bump: 0,
                end: 0,
            }),
        }
    }
}

/// The class of a small request (`1 <= size <= MAX_SMALL`).
#[inline(always)]
fn class_of(size: usize) -> usize {
    let bytes = if size <= 1 << MIN_SHIFT {
        1 << MIN_SHIFT
    } else {
        size.next_power_of_two()
    };
    (bytes.trailing_zeros() - MIN_SHIFT) as usize
}

/// Whether a layout is served from the classes.
#[inline(always)]
fn is_small(size: usize, align: usize) -> bool {
    size <= MAX_SMALL && align <= ALIGN
}

impl<A: GlobalAlloc> SizeClasses<A> {
    /// A block of class `c`: the head of its free list, or carved from the chunk.
    ///
    /// # Safety
    /// `c < CLASSES`; no other reference to `classes` is live (single thread).
    #[inline(always)]
    unsafe fn take(&self, c: usize) -> *mut u8 {
        // SAFETY: single-threaded and not re-entrant (the inner allocator never calls back).
        let classes = unsafe { &mut *self.classes.get() };
        let Some(head) = classes.free.get_mut(c) else {
            return ptr::null_mut();
        };
        if !head.is_null() {
            let block = *head;
            // SAFETY: a free block holds the next free block's address in its first word
            // (written by `give`; blocks are 16-aligned and at least 16 bytes).
            *head = unsafe { block.cast::<*mut u8>().read() };
            return block;
        }
        let bytes = (1usize << MIN_SHIFT) << c;
        if classes.end - classes.bump < bytes {
            // SAFETY: CHUNK is non-zero and ALIGN a power of two.
            let chunk = unsafe {
                self.inner
                    .alloc(Layout::from_size_align_unchecked(CHUNK, ALIGN))
            };
            if chunk.is_null() {
                return chunk;
            }
            // The rest of the old chunk (less than one block of this class) is left unused.
            classes.bump = chunk as usize;
            classes.end = classes.bump + CHUNK;
        }
        let block = classes.bump as *mut u8;
        classes.bump += bytes;
        block
    }

    /// Puts a block of class `c` back on its free list.
    ///
    /// # Safety
    /// `block` came from `take(c)` and is no longer used; single thread.
    #[inline(always)]
    unsafe fn give(&self, block: *mut u8, c: usize) {
        // SAFETY: as in `take`.
        let classes = unsafe { &mut *self.classes.get() };
        if let Some(head) = classes.free.get_mut(c) {
            // SAFETY: the block is ours, unused, 16-aligned and at least 16 bytes.
            unsafe { block.cast::<*mut u8>().write(*head) };
            *head = block;
        }
    }
}

// SAFETY: small blocks are distinct, class-sized, 16-aligned pieces of chunks that are never
// freed; a block is handed out again only after its owner freed it (LIFO list). `dealloc` and
// `realloc` get the layout the block was allocated with (GlobalAlloc's contract), so its
// class is known without a header. Everything else is the inner allocator's.
unsafe impl<A: GlobalAlloc> GlobalAlloc for SizeClasses<A> {
    #[inline(never)]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if is_small(layout.size(), layout.align()) {
            // SAFETY: class_of(size) < CLASSES for size <= MAX_SMALL; single thread.
            unsafe { self.take(class_of(layout.size())) }
        } else {
            // SAFETY: the caller's layout, passed on.
            unsafe { self.inner.alloc(layout) }
        }
    }

    #[inline(never)]
    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        if is_small(layout.size(), layout.align()) {
            // SAFETY: allocated by `alloc` with this layout, hence by `take` of this class.
            unsafe { self.give(block, class_of(layout.size())) }
        } else {
            // SAFETY: allocated by the inner allocator with this layout.
            unsafe { self.inner.dealloc(block, layout) }
        }
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let old_small = is_small(layout.size(), layout.align());
        let new_small = is_small(new_size, layout.align());
        if old_small && new_small && class_of(layout.size()) == class_of(new_size) {
            // The block already holds `new_size` bytes.
            return block;
        }
        if !old_small && !new_small {
            // SAFETY: the inner allocator's block and layout; new_size is the caller's.
            return unsafe { self.inner.realloc(block, layout, new_size) };
        }
        // SAFETY: the caller guarantees a valid size for this alignment (GlobalAlloc::realloc).
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        // SAFETY: new_size is non-zero (GlobalAlloc::realloc's contract).
        let moved = unsafe { self.alloc(new_layout) };
        if !moved.is_null() {
            // SAFETY: both blocks hold at least min(old, new) bytes and are distinct (the old
            // one is still allocated); then the old one is freed with its own layout.
            unsafe {
                ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size));
                self.dealloc(block, layout);
            }
        }
        moved
    }
}

#[cfg(test)]
#[allow(
    clippy::undocumented_unsafe_blocks,
    clippy::unwrap_used,
    clippy::indexing_slicing
)]
mod tests {
    extern crate std;
    use super::*;
    use std::alloc::System;
    use std::cell::Cell;
    use std::vec::Vec;

    /// The system allocator, counting what is taken from it and still held.
    struct Counting {
        live: Cell<usize>,
        taken: Cell<usize>,
        /// Chunks taken (the tests never ask for CHUNK bytes themselves).
        chunks: Cell<usize>,
    }

    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            self.live.set(self.live.get() + 1);
            self.taken.set(self.taken.get() + 1);
            if layout.size() == CHUNK {
                self.chunks.set(self.chunks.get() + 1);
            }
            unsafe { System.alloc(layout) }
        }
        unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
            self.live.set(self.live.get() - 1);
            unsafe { System.dealloc(block, layout) }
        }
    }

    fn classes() -> SizeClasses<Counting> {
        SizeClasses::new(Counting {
            live: Cell::new(0),
            taken: Cell::new(0),
            chunks: Cell::new(0),
        })
    }

    struct Live {
        block: *mut u8,
        layout: Layout,
        fill: u8,
    }

    fn fill(l: &Live) {
        unsafe { ptr::write_bytes(l.block, l.fill, l.layout.size()) };
    }

    fn check(l: &Live, upto: usize) {
        let bytes = unsafe { std::slice::from_raw_parts(l.block, upto) };
        assert!(bytes.iter().all(|&b| b == l.fill), "block contents changed");
    }

    fn no_overlap(live: &[Live]) {
        let mut spans: Vec<(usize, usize)> = live
            .iter()
            .map(|l| (l.block as usize, l.block as usize + l.layout.size()))
            .collect();
        spans.sort_unstable();
        for pair in spans.windows(2) {
            assert!(pair[0].1 <= pair[1].0, "blocks overlap: {pair:?}");
        }
    }

    #[test]
    fn every_small_size_gets_the_smallest_class_that_holds_it() {
        for size in 1..=MAX_SMALL {
            let c = class_of(size);
            assert!(c < CLASSES, "{size}");
            let bytes = 16usize << c;
            assert!(bytes >= size, "{size} in {bytes}");
            assert!(
                c == 0 || (16usize << (c - 1)) < size,
                "{size} not in the smallest class"
            );
        }
        assert!(!is_small(MAX_SMALL + 1, 1));
        assert!(!is_small(8, 32));
        assert!(is_small(MAX_SMALL, 16));
    }

    #[test]
    fn freed_blocks_are_reused_lifo_and_chunks_are_never_returned() {
        let a = classes();
        let l = Layout::from_size_align(100, 8).unwrap();
        let first = unsafe { a.alloc(l) };
        unsafe { a.dealloc(first, l) };
        for _ in 0..10_000 {
            let b = unsafe { a.alloc(l) };
            assert_eq!(b, first);
            unsafe { a.dealloc(b, l) };
        }
        // One chunk taken, still held.
        assert_eq!(a.inner.taken.get(), 1);
        assert_eq!(a.inner.live.get(), 1);
    }

    #[test]
    fn a_chunk_is_carved_into_blocks_until_full() {
        let a = classes();
        let l = Layout::from_size_align(2048, 16).unwrap();
        let blocks: Vec<*mut u8> = (0..CHUNK / 2048 + 1)
            .map(|_| unsafe { a.alloc(l) })
            .collect();
        assert_eq!(
            a.inner.taken.get(),
            2,
            "32 blocks of 2 KB fill one 64 KB chunk"
        );
        for w in blocks.windows(2).take(CHUNK / 2048 - 1) {
            assert_eq!(w[1] as usize - w[0] as usize, 2048);
        }
    }

    #[test]
    fn large_and_overaligned_requests_go_to_the_inner_allocator() {
        let a = classes();
        for layout in [
            Layout::from_size_align(MAX_SMALL + 1, 8).unwrap(),
            Layout::from_size_align(64, 64).unwrap(),
        ] {
            let before = a.inner.live.get();
            let b = unsafe { a.alloc(layout) };
            assert_eq!(b as usize % layout.align(), 0);
            assert_eq!(a.inner.live.get(), before + 1);
            unsafe { a.dealloc(b, layout) };
            assert_eq!(a.inner.live.get(), before);
        }
    }

    #[test]
    fn realloc_within_a_class_keeps_the_block_and_across_moves_the_bytes() {
        let a = classes();
        let l = Layout::from_size_align(40, 8).unwrap();
        let b = unsafe { a.alloc(l) };
        unsafe { ptr::write_bytes(b, 7, 40) };
        let same = unsafe { a.realloc(b, l, 64) };
        assert_eq!(same, b, "40 and 64 bytes share the 64-byte class");
        let l64 = Layout::from_size_align(64, 8).unwrap();
        let big = unsafe { a.realloc(same, l64, 5000) };
        assert_ne!(big, b);
        let kept = unsafe { std::slice::from_raw_parts(big, 40) };
        assert!(kept.iter().all(|&x| x == 7));
        let l5000 = Layout::from_size_align(5000, 8).unwrap();
        let small = unsafe { a.realloc(big, l5000, 30) };
        let kept = unsafe { std::slice::from_raw_parts(small, 30) };
        assert!(kept.iter().all(|&x| x == 7));
        unsafe { a.dealloc(small, Layout::from_size_align(30, 8).unwrap()) };
    }

    #[derive(Debug, Clone)]
    enum Op {
        Alloc(usize, u32),
        Free(usize),
        Realloc(usize, usize),
    }

    fn op() -> impl proptest::strategy::Strategy<Value = Op> {
        use proptest::prelude::*;
        prop_oneof![
            3 => (prop_oneof![1usize..=64, 1usize..=MAX_SMALL + 64, 1usize..=9000], 0u32..=6)
                .prop_map(|(s, a)| Op::Alloc(s, a)),
            2 => any::<usize>().prop_map(Op::Free),
            2 => (any::<usize>(), prop_oneof![1usize..=64, 1usize..=MAX_SMALL + 64, 1usize..=9000])
                .prop_map(|(i, s)| Op::Realloc(i, s)),
        ]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        /// Random allocation sequences: every block is aligned, keeps its bytes until it is
        /// freed or moved, and no two live blocks overlap; freeing all returns every large
        /// block to the inner allocator (only chunks stay).
        #[test]
        fn random_sequences_keep_blocks_intact_and_apart(ops in proptest::collection::vec(op(), 1..400)) {
            let a = classes();
            let mut live: Vec<Live> = Vec::new();
            let mut next_fill = 1u8;
            for op in ops {
                match op {
                    Op::Alloc(size, align_log) => {
                        let layout = Layout::from_size_align(size, 1 << align_log).unwrap();
                        let block = unsafe { a.alloc(layout) };
                        assert!(!block.is_null());
                        assert_eq!(block as usize % layout.align(), 0);
                        next_fill = next_fill.wrapping_add(1).max(1);
                        let l = Live { block, layout, fill: next_fill };
                        fill(&l);
                        live.push(l);
                    }
                    Op::Free(i) if !live.is_empty() => {
                        let l = live.swap_remove(i % live.len());
                        check(&l, l.layout.size());
                        unsafe { a.dealloc(l.block, l.layout) };
                    }
                    Op::Realloc(i, size) if !live.is_empty() => {
                        let i = i % live.len();
                        let old = &live[i];
                        check(old, old.layout.size());
                        let block = unsafe { a.realloc(old.block, old.layout, size) };
                        assert!(!block.is_null());
                        assert_eq!(block as usize % old.layout.align(), 0);
                        let moved = Live { block, layout: Layout::from_size_align(size, old.layout.align()).unwrap(), fill: old.fill };
                        check(&moved, old.layout.size().min(size));
                        fill(&moved);
                        live[i] = moved;
                    }
                    _ => {}
                }
                no_overlap(&live);
                for l in &live {
                    check(l, l.layout.size());
                }
            }
            for l in live.drain(..) {
                unsafe { a.dealloc(l.block, l.layout) };
            }
            // Every large block went back; what is still held is the chunks, and the free
            // lists hold no more than they can carve.
            assert_eq!(a.inner.live.get(), a.inner.chunks.get());
            let free_bytes: usize = (0..CLASSES).map(|c| unsafe { count_free(&a, c) } * (16 << c)).sum();
            assert!(free_bytes <= a.inner.chunks.get() * CHUNK);
        }
    }

    /// The length of class `c`'s free list.
    unsafe fn count_free(a: &SizeClasses<Counting>, c: usize) -> usize {
        let mut n = 0;
        let mut p = unsafe { (*a.classes.get()).free[c] };
        while !p.is_null() {
            n += 1;
            p = unsafe { p.cast::<*mut u8>().read() };
        }
        n
    }
}
