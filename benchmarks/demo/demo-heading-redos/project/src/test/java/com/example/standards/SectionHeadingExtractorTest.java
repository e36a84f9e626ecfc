package com.example.standards;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.example.standards.SectionHeadingExtractor.Heading;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class SectionHeadingExtractorTest {

    @Test
    void longUpperCaseLineIsHandledInLinearTime() {
        SectionHeadingExtractor extractor = new SectionHeadingExtractor(12);
        String hostile = "1.2 " + "A".repeat(64) + "!";
        List<Heading> headings = assertTimeoutPreemptively(Duration.ofSeconds(2), () -> extractor.extract(hostile));
        assertEquals(List.of(), headings);
    }

    @Test
    void extractsHeadingsInOrder() {
        String text = "ISO 9999:2024\n"
                + "1 SCOPE\n"
                + "This document specifies things.\n"
                + "2. NORMATIVE REFERENCES\n"
                + "4.2.1 TERMS AND DEFINITIONS\n";
        assertEquals(List.of(new Heading("1", "SCOPE"), new Heading("2", "NORMATIVE REFERENCES"),
                new Heading("4.2.1", "TERMS AND DEFINITIONS")), new SectionHeadingExtractor(12).extract(text));
    }

    @Test
    void ignoresLinesThatAreNotHeadings() {
        String text = "1 Scope of this document\nsee 3.1 ABOVE for details\n12 apples\n";
        assertEquals(List.of(), new SectionHeadingExtractor(12).extract(text));
    }

    @Test
    void titlesLongerThanTheLimitAreNotHeadings() {
        String text = "7 ONE TWO THREE FOUR\n8 ONE TWO THREE\n";
        assertEquals(List.of(new Heading("8", "ONE TWO THREE")), new SectionHeadingExtractor(3).extract(text));
    }

    @Test
    void rejectsNonPositiveLimit() {
        assertThrows(IllegalArgumentException.class, () -> new SectionHeadingExtractor(0));
    }
}
