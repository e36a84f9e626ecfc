package com.example.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class HttpHeadersTest {

    private static final List<String> SPLITTING = List.of("theme=dark", "lang=en\r\nX-Injected: yes");

    @Test
    void setAllRejectsLineBreaksInValues() {
        HttpHeaders headers = new HttpHeaders();
        try {
            headers.setAll("Set-Cookie", SPLITTING);
        } catch (IllegalArgumentException rejected) {
            return;
        }
        assertFalse(headers.toWireFormat().contains("\r\nX-Injected"),
                "a value with CRLF split the response: " + headers.toWireFormat());
    }

    @Test
    void addAllRejectsLineBreaksInValues() {
        HttpHeaders headers = new HttpHeaders();
        try {
            headers.addAll("Set-Cookie", SPLITTING);
        } catch (IllegalArgumentException rejected) {
            return;
        }
        assertFalse(headers.toWireFormat().contains("\r\nX-Injected"),
                "a value with CRLF split the response: " + headers.toWireFormat());
    }

    @Test
    void namesCompareCaseInsensitively() {
        HttpHeaders headers = new HttpHeaders().add("Content-Type", "text/plain");
        assertEquals("text/plain", headers.get("content-type"));
        assertNull(headers.get("Content-Length"));
    }

    @Test
    void addAndAddAllAppend() {
        HttpHeaders headers = new HttpHeaders().add("Vary", "Accept").addAll("vary", List.of("Origin", "Cookie"));
        assertEquals(List.of("Accept", "Origin", "Cookie"), headers.getAll("VARY"));
    }

    @Test
    void setAndSetAllReplace() {
        HttpHeaders headers = new HttpHeaders().add("Cache-Control", "no-cache");
        headers.setAll("Cache-Control", List.of("private", "max-age=60"));
        assertEquals(List.of("private", "max-age=60"), headers.getAll("Cache-Control"));
        headers.set("Cache-Control", "no-store");
        assertEquals(List.of("no-store"), headers.getAll("Cache-Control"));
    }

    @Test
    void singleValueMethodsRejectLineBreaks() {
        HttpHeaders headers = new HttpHeaders();
        assertThrows(IllegalArgumentException.class, () -> headers.set("Location", "/home\r\nSet-Cookie: a=b"));
        assertThrows(IllegalArgumentException.class, () -> headers.add("Location", "/home\nX: y"));
    }

    @Test
    void rejectsInvalidNames() {
        assertThrows(IllegalArgumentException.class, () -> new HttpHeaders().addAll("Bad Name", List.of("v")));
    }

    @Test
    void wireFormatKeepsFirstSpellingAndOrder() {
        HttpHeaders headers = new HttpHeaders().add("Content-Type", "text/html").addAll("set-cookie", List.of("a=1", "b=2"));
        assertEquals("Content-Type: text/html\r\nset-cookie: a=1\r\nset-cookie: b=2\r\n", headers.toWireFormat());
    }
}
