package com.example.logging;

/**
 * Formats log events with a layout pattern such as "[${sys:app.name}] %level %msg". Lookups in the
 * pattern come from the logging configuration and are resolved each time an event is formatted;
 * %level and %msg stand for the event's level and message. A message template's "{}" placeholders
 * take the event's arguments in order.
 */
public final class PatternLayout {

    private final String pattern;
    private final Interpolator interpolator = new Interpolator();

    public PatternLayout(String pattern) {
        this.pattern = pattern;
    }

    public String format(String level, String messageTemplate, Object... arguments) {
        String message = substitute(messageTemplate, arguments);
        if (message.contains("${")) {
            message = interpolator.resolve(message);
        }
        String line = interpolator.resolve(pattern);
        return line.replace("%level", level).replace("%msg", message);
    }

    private static String substitute(String template, Object[] arguments) {
        StringBuilder out = new StringBuilder();
        int next = 0;
        int from = 0;
        for (int at = template.indexOf("{}"); at >= 0 && next < arguments.length; at = template.indexOf("{}", from)) {
            out.append(template, from, at).append(arguments[next++]);
            from = at + 2;
        }
        return out.append(template.substring(from)).toString();
    }
}
