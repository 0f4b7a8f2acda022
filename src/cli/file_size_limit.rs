//! Writes past the process's file-size limit (`ulimit -f`, `RLIMIT_FSIZE`) fail with `EFBIG`
//! instead of killing the process.
//!
//! By default the kernel answers such a write with `SIGXFSZ`, whose default action ends the
//! process: a server died mid-answer (the host saw it exit by a signal, the call never
//! answered) and a command left no message. With the signal ignored, the write returns
//! `EFBIG`: SQLite fails that transaction (`SQLITE_IOERR_WRITE`, rolled back, nothing
//! acknowledged), the tool call says so, and the server goes on serving; a command's file
//! write fails with an `io::Error` of kind `FileTooLarge` and its message.
//!
//! Runtime dependencies are fixed (no `libc`), so this is one `extern "C"` declaration of
//! POSIX `signal`, the same call (with `SIGPIPE`) Rust's own runtime makes before `main`.
//! Why it is sound:
//! - `signal(2)` is in every libc this builds against (glibc, musl, macOS libSystem) under
//!   that name, taking an `int` and a handler and returning the previous one. The handler
//!   type is a pointer to a function; `SIG_IGN` is the integer 1 cast to it, and a
//!   pointer-sized integer is passed as a pointer is in every C ABI of these targets (the
//!   `libc` crate declares it the same way, `sighandler_t = size_t`).
//! - No handler of ours runs: the disposition is "ignore", set once, first thing in `main`,
//!   before any thread starts; nothing is shared and nothing can race it.
//! - The numbers are per platform: `SIGXFSZ` is 25 and `SIG_IGN` 1 on Linux for the
//!   architectures listed and on macOS. Elsewhere (MIPS uses 31, for one) the call is not
//!   made and the limit keeps its default action, as before.
//!
//! An ignored signal is inherited across `exec`: a `git` that `sync` runs also gets `EFBIG`
//! (and reports it) instead of being killed, which is what a user of it would want too.

/// Makes a write past the file-size limit fail (`EFBIG`) rather than end the process, on the
/// platforms whose numbers are known; elsewhere the limit keeps its default action (see the
/// module's documentation).
#[allow(unsafe_code)]
pub fn fail_writes_past_it() {
    #[cfg(all(
        any(target_os = "linux", target_os = "macos"),
        any(
            target_arch = "x86_64",
            target_arch = "x86",
            target_arch = "aarch64",
            target_arch = "arm",
            target_arch = "riscv64",
            target_arch = "powerpc64",
            target_arch = "s390x",
            target_arch = "loongarch64"
        )
    ))]
    {
        use std::ffi::c_int;
        /// `SIGXFSZ` on the platforms above.
        const SIGXFSZ: c_int = 25;
        /// `SIG_IGN` on the platforms above.
        const SIG_IGN: usize = 1;
        unsafe extern "C" {
            fn signal(signum: c_int, handler: usize) -> usize;
        }
        // SAFETY: see the module's documentation: a libc function with this signature on
        // every target above, given the target's own numbers for the signal and for
        // "ignore"; it sets a process-wide disposition and runs no code of ours.
        let _previous = unsafe { signal(SIGXFSZ, SIG_IGN) };
    }
}
