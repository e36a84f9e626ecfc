//! Names of oracle tests: `pkg.Class#method`, or `pkg.Class` for a whole class.

use std::fmt;

/// A JUnit test, or a whole test class when `method` is `None`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TestName {
    /// The fully qualified class name, e.g. `com.example.ParserTest`.
    pub class: String,
    /// The test method, e.g. `rejectsExternalEntities`.
    pub method: Option<String>,
}

/// Why a test name could not be read.
#[derive(Debug, thiserror::Error)]
pub enum TestNameError {
    /// The text is not `pkg.Class#method` or `pkg.Class`.
    #[error("`{0}` is not a test name of the form pkg.Class#method")]
    Malformed(String),
    /// A method was required but the name names a whole class.
    #[error("`{0}` names a class; a PoV test must name a method (pkg.Class#method)")]
    MissingMethod(String),
}

fn is_java_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

/// The method name without a parameterized invocation: `m` for `m`, `m[3]` and `m(String)[1]`.
fn base_method(method: &str) -> &str {
    method.split(['[', '(']).next().unwrap_or(method)
}

impl TestName {
    /// Reads `pkg.Class#method` or `pkg.Class`.
    pub fn parse(text: &str) -> Result<Self, TestNameError> {
        let malformed = || TestNameError::Malformed(text.to_owned());
        let (class, method) = match text.split_once('#') {
            Some((class, method)) => (class, Some(method)),
            None => (text, None),
        };
        if class.is_empty() || !class.split('.').all(is_java_identifier) {
            return Err(malformed());
        }
        if let Some(method) = method
            && !is_java_identifier(base_method(method))
        {
            return Err(malformed());
        }
        Ok(Self {
            class: class.to_owned(),
            method: method.map(str::to_owned),
        })
    }

    /// Reads a name that must include a method.
    pub fn parse_method(text: &str) -> Result<Self, TestNameError> {
        let name = Self::parse(text)?;
        if name.method.is_none() {
            return Err(TestNameError::MissingMethod(text.to_owned()));
        }
        Ok(name)
    }

    /// Whether a test case `class#method` is this test (or belongs to this class). A name without
    /// an invocation (`m`) covers every invocation of a parameterized method (`m[3]`, JUnit 5's
    /// `m(String)[1]`); a name with one (`m[3]`) only that invocation.
    pub fn matches(&self, class: &str, method: &str) -> bool {
        self.class == class
            && self
                .method
                .as_deref()
                .is_none_or(|m| m == method || (m == base_method(m) && base_method(method) == m))
    }

    /// Whether a test case belongs to the same method (any invocation) or class as this name.
    pub fn covers(&self, class: &str, method: &str) -> bool {
        self.class == class
            && self
                .method
                .as_deref()
                .is_none_or(|m| base_method(m) == base_method(method))
    }

    /// The value for Surefire's `-Dtest`: an invocation selects its whole method (`m*`), since
    /// Surefire filters by method name; the verdict rules then require the named invocation.
    pub fn surefire_pattern(&self) -> String {
        match &self.method {
            Some(m) if m != base_method(m) => format!("{}#{}*", self.class, base_method(m)),
            _ => self.to_string(),
        }
    }
}

impl fmt::Display for TestName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.method {
            Some(method) => write!(f, "{}#{}", self.class, method),
            None => f.write_str(&self.class),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_method_and_class_names() {
        let name = TestName::parse("com.ex.FooTest#bar").unwrap();
        assert_eq!(name.class, "com.ex.FooTest");
        assert_eq!(name.method.as_deref(), Some("bar"));
        assert_eq!(name.to_string(), "com.ex.FooTest#bar");
        assert!(TestName::parse("com.ex.FooTest").unwrap().method.is_none());
        assert!(TestName::parse_method("com.ex.FooTest").is_err());
    }

    #[test]
    fn rejects_malformed_names() {
        for bad in [
            "", "#m", "a..b#m", "a.b#", "a.b#m#n", "a b#m", "1a.B#m", "a.B#[1]",
        ] {
            assert!(TestName::parse(bad).is_err(), "{bad} should be rejected");
        }
    }

    #[test]
    fn class_names_match_all_their_methods() {
        let class = TestName::parse("a.B").unwrap();
        assert!(class.matches("a.B", "x"));
        assert!(!class.matches("a.C", "x"));
        let method = TestName::parse("a.B#x").unwrap();
        assert!(method.matches("a.B", "x"));
        assert!(!method.matches("a.B", "y"));
    }

    #[test]
    fn parameterized_invocations_are_selected_by_method_or_one_by_one() {
        let method = TestName::parse("a.B#m").unwrap();
        assert!(method.matches("a.B", "m[3]"));
        assert!(method.matches("a.B", "m(String)[1]"));
        assert!(!method.matches("a.B", "mm[3]"));
        let one = TestName::parse("a.B#m[PercentCodec %De]").unwrap();
        assert_eq!(one.method.as_deref(), Some("m[PercentCodec %De]"));
        assert!(one.matches("a.B", "m[PercentCodec %De]"));
        assert!(!one.matches("a.B", "m[2]"));
        assert!(one.covers("a.B", "m[2]"));
        assert_eq!(one.surefire_pattern(), "a.B#m*");
        assert_eq!(method.surefire_pattern(), "a.B#m");
    }
}
