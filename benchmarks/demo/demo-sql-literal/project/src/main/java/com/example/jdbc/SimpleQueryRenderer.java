package com.example.jdbc;

import java.math.BigDecimal;

/**
 * Inlines the parameters of a prepared statement into its SQL text, as a database driver does
 * when it talks a simple query protocol that has no separate channel for parameter values. Each
 * '?' outside a string literal is replaced by the SQL literal of the next parameter.
 */
public final class SimpleQueryRenderer {

    private SimpleQueryRenderer() {
    }

    public static String render(String sql, Object... parameters) {
        StringBuilder out = new StringBuilder(sql.length() + 16 * parameters.length);
        int next = 0;
        boolean inString = false;
        for (int i = 0; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (c == '\'') {
                inString = !inString;
            }
            if (c == '?' && !inString) {
                if (next == parameters.length) {
                    throw new IllegalArgumentException("no value for parameter " + (next + 1));
                }
                out.append(literal(parameters[next++]));
            } else {
                out.append(c);
            }
        }
        if (next != parameters.length) {
            throw new IllegalArgumentException(parameters.length + " values for " + next + " parameters");
        }
        return out.toString();
    }

    /** Returns the SQL literal that stands for a parameter value. */
    static String literal(Object value) {
        if (value == null) {
            return "NULL";
        }
        if (value instanceof Integer || value instanceof Long || value instanceof Short) {
            return value.toString();
        }
        if (value instanceof Boolean flag) {
            return flag ? "TRUE" : "FALSE";
        }
        if (value instanceof String text) {
            // Inside a standard-conforming string literal only the quote itself is special.
            return "'" + text.replace("'", "''") + "'";
        }
        if (value instanceof BigDecimal decimal) {
            return decimal.toPlainString();
        }
        throw new IllegalArgumentException("unsupported parameter type " + value.getClass().getName());
    }
}
