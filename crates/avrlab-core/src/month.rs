//! A calendar month (`YYYY-MM`): the grain at which a model's training cut-off is stated and
//! compared with the date a task's fix was made.

use std::fmt;
use std::str::FromStr;

/// A calendar month. Months order by time, so `fixed <= cutoff` reads as "fixed in or before the
/// cut-off month".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Month {
    year: u16,
    month: u8,
}

/// A month or date that is not written `YYYY-MM` (or, for a date, `YYYY-MM-DD…`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a month: write YYYY-MM, e.g. 2023-10")]
pub struct BadMonth(pub String);

impl Month {
    /// The month of an ISO 8601 date or date-time (`2018-09-13`, `2018-09-13T10:35:12+02:00`):
    /// the month on the writer's own calendar, as git and the datasets state it.
    pub fn of_date(date: &str) -> Result<Self, BadMonth> {
        let bad = || BadMonth(date.to_owned());
        let bytes = date.as_bytes();
        let day_ok = bytes.len() >= 10
            && bytes[7] == b'-'
            && bytes[8..10].iter().all(u8::is_ascii_digit)
            && matches!(
                std::str::from_utf8(&bytes[8..10])
                    .ok()
                    .and_then(|d| d.parse::<u8>().ok()),
                Some(1..=31)
            )
            && (bytes.len() == 10 || bytes[10] == b'T' || bytes[10] == b' ');
        if !day_ok {
            return Err(bad());
        }
        date.get(..7).ok_or_else(bad)?.parse().map_err(|_| bad())
    }
}

/// The month a fix became part of its project's history, which a cut-off is compared with: that
/// of its commit date, else of its author date; `None` when neither is known (or readable).
pub fn fix_month(committed: Option<&str>, authored: Option<&str>) -> Option<Month> {
    committed
        .or(authored)
        .and_then(|date| Month::of_date(date).ok())
}

impl FromStr for Month {
    type Err = BadMonth;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let bad = || BadMonth(text.to_owned());
        let (year, month) = text.split_once('-').ok_or_else(bad)?;
        if year.len() != 4
            || month.len() != 2
            || !year
                .bytes()
                .chain(month.bytes())
                .all(|b| b.is_ascii_digit())
        {
            return Err(bad());
        }
        let year: u16 = year.parse().map_err(|_| bad())?;
        let month: u8 = month.parse().map_err(|_| bad())?;
        if !(1..=12).contains(&month) {
            return Err(bad());
        }
        Ok(Self { year, month })
    }
}

impl fmt::Display for Month {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}", self.year, self.month)
    }
}

/// Written as `YYYY-MM`.
impl serde::Serialize for Month {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// Read from `YYYY-MM`; anything else is an error naming the value.
impl<'de> serde::Deserialize<'de> for Month {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn months_read_write_and_order() {
        let cutoff: Month = "2023-10".parse().unwrap();
        assert_eq!(cutoff.to_string(), "2023-10");
        assert!(Month::of_date("2023-10-31T23:59:00+02:00").unwrap() <= cutoff);
        assert!(Month::of_date("2023-11-01").unwrap() > cutoff);
        assert!(Month::of_date("2019-12-02").unwrap() < cutoff);
        for bad in ["2023-13", "2023-1", "23-10", "2023/10", "", "2023-10-"] {
            assert!(bad.parse::<Month>().is_err(), "{bad}");
        }
        for bad in ["2023-10", "2023-10-32", "2023-10-05x", "2023-1005"] {
            assert!(Month::of_date(bad).is_err(), "{bad}");
        }
    }
}
