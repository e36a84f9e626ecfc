package com.example.standards;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Finds numbered section headings such as "4.2 NORMATIVE REFERENCES" in the plain text extracted
 * from a standard or specification, to build its table of contents.
 */
public final class SectionHeadingExtractor {

    /** A heading: its section number without a trailing dot, and its title. */
    public record Heading(String number, String title) {
    }

    private final Pattern heading;

    /** @param maxTitleWords the longest title, in words, that still counts as a heading */
    public SectionHeadingExtractor(int maxTitleWords) {
        if (maxTitleWords < 1) {
            throw new IllegalArgumentException("maxTitleWords must be positive: " + maxTitleWords);
        }
        this.heading = headingPattern(maxTitleWords);
    }

    /** A line that holds a section number, then a title of upper-case words separated by spaces. */
    static Pattern headingPattern(int maxTitleWords) {
        return Pattern.compile("(?m)^(\\d+(?:\\.\\d+)*)\\.?[ \\t]+((?:[A-Z]+ ?){1," + maxTitleWords + "})$");
    }

    /** Returns the headings of a text in the order they appear. */
    public List<Heading> extract(String text) {
        List<Heading> headings = new ArrayList<>();
        Matcher matcher = heading.matcher(text);
        while (matcher.find()) {
            headings.add(new Heading(matcher.group(1), matcher.group(2).strip()));
        }
        return headings;
    }
}
