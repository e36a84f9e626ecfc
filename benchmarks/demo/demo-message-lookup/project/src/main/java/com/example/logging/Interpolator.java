package com.example.logging;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Resolves lookups of the form ${sys:name} (a system property) and ${env:NAME} (an environment
 * variable) in a text. A lookup whose prefix is unknown or whose value is missing stays as written.
 */
public final class Interpolator {

    private static final Pattern LOOKUP = Pattern.compile("\\$\\{([a-z]+):([^}]*)}");

    public String resolve(String text) {
        Matcher matcher = LOOKUP.matcher(text);
        StringBuilder out = new StringBuilder();
        while (matcher.find()) {
            String value = lookup(matcher.group(1), matcher.group(2));
            matcher.appendReplacement(out, Matcher.quoteReplacement(value != null ? value : matcher.group()));
        }
        matcher.appendTail(out);
        return out.toString();
    }

    private static String lookup(String prefix, String name) {
        switch (prefix) {
            case "sys":
                return System.getProperty(name);
            case "env":
                return System.getenv(name);
            default:
                return null;
        }
    }
}
