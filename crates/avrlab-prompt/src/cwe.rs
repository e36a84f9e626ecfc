//! Names and short descriptions of the CWEs that prompts may reveal (chat formats P3 and P4).
//! Written for avrlab from the CWE catalogue's entries; unknown ids fall back to their number.

use crate::method::CweInfo;

const KNOWN: &[(u32, &str, &str)] = &[
    (
        20,
        "Improper Input Validation",
        "Input is used without checking that it has the properties the code relies on.",
    ),
    (
        22,
        "Path Traversal",
        "A path built from input can name files outside the directory the code means to restrict it to.",
    ),
    (
        74,
        "Injection",
        "Input is placed into a command, query or document for another component without neutralizing its special elements.",
    ),
    (
        78,
        "OS Command Injection",
        "Input reaches an operating-system command without its special characters being neutralized.",
    ),
    (
        79,
        "Cross-site Scripting",
        "Input is written into a web page without being encoded for the context it lands in, so it can run as script.",
    ),
    (
        89,
        "SQL Injection",
        "Input is placed into an SQL statement without neutralizing quotes and other special characters.",
    ),
    (
        94,
        "Code Injection",
        "Input is interpreted as code by the program.",
    ),
    (
        113,
        "HTTP Response Splitting",
        "Carriage returns or line feeds from input reach an HTTP header, letting an attacker add headers or a body.",
    ),
    (
        190,
        "Integer Overflow",
        "An arithmetic result wraps around, so a size or bounds check passes when it should fail.",
    ),
    (
        200,
        "Exposure of Sensitive Information",
        "Secret data reaches an actor who should not see it, for example through an error message.",
    ),
    (
        287,
        "Improper Authentication",
        "The code does not prove that an actor is who it claims to be.",
    ),
    (
        400,
        "Uncontrolled Resource Consumption",
        "Input can make the code use unbounded memory, CPU time or other resources.",
    ),
    (
        502,
        "Deserialization of Untrusted Data",
        "Untrusted bytes are deserialized without restricting which classes may be created.",
    ),
    (
        532,
        "Sensitive Information in Log Files",
        "Secrets such as passwords or tokens are written to a log.",
    ),
    (
        611,
        "XML External Entity Reference",
        "An XML parser resolves external entities, so a document can read local files or reach other hosts.",
    ),
    (
        770,
        "Allocation Without Limits",
        "Resources are allocated from input sizes without any limit.",
    ),
    (
        835,
        "Infinite Loop",
        "A loop's exit condition can never be reached for some inputs.",
    ),
    (
        862,
        "Missing Authorization",
        "An action is performed without checking that the actor is allowed to perform it.",
    ),
    (
        918,
        "Server-Side Request Forgery",
        "The server fetches a URL chosen by the requester.",
    ),
    (
        1333,
        "Inefficient Regular Expression Complexity",
        "A regular expression backtracks exponentially on some inputs, hanging the matcher.",
    ),
];

/// What a prompt says about a CWE.
pub fn cwe_info(id: u32) -> CweInfo {
    match KNOWN.iter().find(|(known, _, _)| *known == id) {
        Some((_, name, description)) => CweInfo {
            id,
            name: (*name).into(),
            description: (*description).into(),
        },
        None => CweInfo {
            id,
            name: format!("CWE-{id}"),
            description: String::new(),
        },
    }
}
