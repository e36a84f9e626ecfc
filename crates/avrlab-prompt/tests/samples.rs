//! The two sample methods every test renders: one single-hunk, one multi-hunk (an insertion and a
//! replacement), written inline so that a snapshot's input sits next to the code that uses it.

use avrlab_prompt::{CweInfo, LineRange, VulnerableMethod};

/// A path traversal (CWE-22): line 21 builds a file from an unchecked name.
pub fn single_hunk() -> VulnerableMethod {
    VulnerableMethod {
        file: "src/main/java/com/example/Storage.java".into(),
        method_name: "resolve".into(),
        source: r#"    public File resolve(String name) throws IOException {
        File target = new File(baseDir, name);
        if (!target.exists()) {
            throw new FileNotFoundException(name);
        }
        return target;
    }
"#
        .into(),
        method_start_line: 20,
        buggy_lines: vec![LineRange::new(21, 21)],
        cwe: vec![CweInfo {
            id: 22,
            name: "Improper Limitation of a Pathname to a Restricted Directory ('Path Traversal')"
                .into(),
            description:
                "The software uses external input to construct a pathname without neutralizing \
                          elements that can resolve outside the restricted directory."
                    .into(),
        }],
        class_context: None,
    }
}

/// An XXE (CWE-611) whose fix inserts a line before line 12, plus an unbounded loop on line 15.
pub fn multi_hunk() -> VulnerableMethod {
    VulnerableMethod {
        file: "src/main/java/com/example/ConfigParser.java".into(),
        method_name: "parse".into(),
        source: r#"    public Document parse(InputStream in) throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        DocumentBuilder builder = factory.newDocumentBuilder();
        Document doc = builder.parse(in); /* untrusted */
        int depth = 0;
        while (depth < MAX_DEPTH) {
            depth++;
        }
        return doc;
    }
"#
        .into(),
        method_start_line: 10,
        buggy_lines: vec![LineRange::new(12, 11), LineRange::new(15, 15)],
        cwe: vec![
            CweInfo {
                id: 611,
                name: "Improper Restriction of XML External Entity Reference".into(),
                description: "The software processes an XML document that can contain XML entities \
                              with URIs that resolve to documents outside of the intended sphere of control."
                    .into(),
            },
            CweInfo {
                id: 835,
                name: "Loop with Unreachable Exit Condition ('Infinite Loop')".into(),
                description: "The program contains a loop whose exit condition cannot be reached.".into(),
            },
        ],
        class_context: Some(
            "public class ConfigParser {\n    private static final int MAX_DEPTH = 64;\n".into(),
        ),
    }
}

/// Both samples with their snapshot names.
pub fn all() -> [(&'static str, VulnerableMethod); 2] {
    [("single", single_hunk()), ("multi", multi_hunk())]
}
