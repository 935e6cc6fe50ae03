//! Cache hints. The event loop of a large network asks the processor to
//! start loading what the next event will touch while it handles the
//! current one (see `Simulator::advance`); a hint changes no result, only
//! how long the run takes.

/// Size of a cache line on the processors these hints are for.
const LINE_BYTES: usize = 64;

/// Asks the processor to bring the cache line that holds `value` into its
/// caches. Returns at once; does nothing on other architectures.
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    prefetch_address((value as *const T).cast());
}

/// [`prefetch`] for every cache line that `value` spans.
#[inline(always)]
pub fn prefetch_all<T>(value: &T) {
    let start = (value as *const T).cast::<u8>();
    let end = start.wrapping_add(std::mem::size_of::<T>());
    let mut line = (start as usize & !(LINE_BYTES - 1)) as *const u8;
    while line < end {
        prefetch_address(line);
        line = line.wrapping_add(LINE_BYTES);
    }
}

#[inline(always)]
fn prefetch_address(address: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint. It cannot fault, whatever the address,
    // and changes no memory the program sees.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(address.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}
