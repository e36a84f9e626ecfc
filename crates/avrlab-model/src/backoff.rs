//! When to retry a failed request and how long to wait: exponential backoff from a base delay, capped,
//! with the server's `Retry-After` taking precedence when it sends one.

use std::time::Duration;

/// The retry policy of a client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (so `max_retries + 1` attempts in all).
    pub max_retries: u32,
    /// The wait before the first retry; each later wait doubles it.
    pub base_delay: Duration,
    /// No wait is longer than this, whatever `Retry-After` says.
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 5,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// The wait before retry number `retry` (0-based), honouring a `Retry-After` header value.
    pub fn delay(&self, retry: u32, retry_after: Option<&str>) -> Duration {
        if let Some(seconds) = retry_after.and_then(parse_retry_after) {
            return seconds.min(self.max_delay);
        }
        let factor = 2u32.saturating_pow(retry.min(20));
        self.base_delay.saturating_mul(factor).min(self.max_delay)
    }
}

/// `Retry-After` as delta-seconds (possibly fractional, as some providers send). HTTP dates are
/// ignored: the exponential backoff is a safe fallback.
fn parse_retry_after(value: &str) -> Option<Duration> {
    let seconds: f64 = value.trim().parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_caps_and_honours_retry_after() {
        let policy = RetryPolicy {
            max_retries: 5,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_secs(1),
        };
        let cases = [
            (0, None, 100),
            (1, None, 200),
            (3, None, 800),
            (4, None, 1000),
            (0, Some("0.25"), 250),
            (0, Some("7"), 1000),
            (2, Some("Wed, 21 Oct 2015 07:28:00 GMT"), 400),
        ];
        for (retry, header, millis) in cases {
            assert_eq!(
                policy.delay(retry, header),
                Duration::from_millis(millis),
                "{retry} {header:?}"
            );
        }
    }
}
