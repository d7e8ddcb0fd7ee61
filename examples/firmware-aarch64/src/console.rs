//! `println!` over semihosting: each line is formatted into a buffer on the
//! stack and written with one `SYS_WRITE0`, so lines of the two cores never
//! mix.

use crate::semihosting;
use core::ffi::CStr;
use core::fmt::{self, Write};

const LINE: usize = 240;

/// A line being formatted; flushed when full and when dropped.
pub struct Line {
    buf: [u8; LINE],
    len: usize,
}

impl Line {
    /// An empty line.
    pub const fn new() -> Self {
        Self {
            buf: [0; LINE],
            len: 0,
        }
    }

    fn flush(&mut self) {
        if self.len == 0 {
            return;
        }
        self.buf[self.len] = 0;
        if let Ok(s) = CStr::from_bytes_until_nul(&self.buf[..=self.len]) {
            semihosting::write0(s);
        }
        self.len = 0;
    }
}

impl Write for Line {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for &b in s.as_bytes() {
            // An interior NUL would end SYS_WRITE0's string early.
            let b = if b == 0 { b'?' } else { b };
            if self.len == LINE - 1 {
                self.flush();
            }
            self.buf[self.len] = b;
            self.len += 1;
        }
        Ok(())
    }
}

impl Drop for Line {
    fn drop(&mut self) {
        self.flush();
    }
}

/// Formats `args` and a newline as one semihosting write.
pub fn print_line(args: fmt::Arguments<'_>) {
    let mut line = Line::new();
    let _ = line.write_fmt(args);
    let _ = line.write_str("\n");
}

/// `println!` for the firmware.
#[macro_export]
macro_rules! println {
    ($($arg:tt)*) => {
        $crate::console::print_line(format_args!($($arg)*))
    };
}
