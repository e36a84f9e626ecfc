package com.example.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

class SimpleQueryRendererTest {

    @Test
    void negativeIntegerAfterMinusDoesNotStartAComment() {
        String sql = SimpleQueryRenderer.render(
                "SELECT id FROM accounts WHERE balance < 0-? AND owner = ?", -50, "mallory");
        assertFalse(sql.contains("--"), "a negative literal after '-' turned the rest of the line into a comment: " + sql);
    }

    @Test
    void negativeDecimalAfterMinusDoesNotStartAComment() {
        String sql = SimpleQueryRenderer.render(
                "UPDATE accounts SET balance = balance-? WHERE owner = ?", new BigDecimal("-12.50"), "mallory");
        assertFalse(sql.contains("--"), "a negative literal after '-' turned the rest of the line into a comment: " + sql);
    }

    @Test
    void rendersNumbers() {
        assertEquals("SELECT * FROM t WHERE id = 42 AND total > 9.99",
                SimpleQueryRenderer.render("SELECT * FROM t WHERE id = ? AND total > ?", 42L, new BigDecimal("9.99")));
    }

    @Test
    void quotesStrings() {
        assertEquals("SELECT * FROM people WHERE name = 'O''Brien'",
                SimpleQueryRenderer.render("SELECT * FROM people WHERE name = ?", "O'Brien"));
    }

    @Test
    void rendersNullAndBooleans() {
        assertEquals("UPDATE t SET a = NULL, b = TRUE, c = FALSE",
                SimpleQueryRenderer.render("UPDATE t SET a = ?, b = ?, c = ?", null, true, false));
    }

    @Test
    void questionMarkInsideStringLiteralIsNotAParameter() {
        assertEquals("SELECT 'why?' AS q, 7",
                SimpleQueryRenderer.render("SELECT 'why?' AS q, ?", 7));
    }

    @Test
    void rejectsWrongNumberOfValues() {
        assertThrows(IllegalArgumentException.class, () -> SimpleQueryRenderer.render("SELECT ?, ?", 1));
        assertThrows(IllegalArgumentException.class, () -> SimpleQueryRenderer.render("SELECT ?", 1, 2));
    }
}
