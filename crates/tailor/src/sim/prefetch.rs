//! A hint to the processor that a value will be read soon.
//!
//! On a fabric of a thousand hosts the engine's state (ports, links, the packets queued
//! at NICs and in flight) is tens of megabytes and each event reads a few lines of it
//! that no other recent event touched: the run waits on memory, not on arithmetic
//! (docs/performance.md, "A thousand hosts"). Where the engine knows what the next event
//! or the next packet will read, it asks for it one step early. A hint changes no result.

/// Asks for the cache line holding the start of `value` (x86-64: `prefetcht0`; elsewhere
/// nothing).
#[inline(always)]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing architecturally and cannot fault, whatever the
    // address; this one is a live reference besides.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(value as *const T as *const i8)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
