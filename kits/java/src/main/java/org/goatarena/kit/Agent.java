package org.goatarena.kit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.goatarena.protocol.Decide;
import org.goatarena.protocol.End;
import org.goatarena.protocol.Start;

/**
 * The goatarena bot protocol (docs/protocol.md): reads the referee's JSON lines, hands start,
 * decide and end to a {@link Bot}, and writes each answer as one flushed line. The messages
 * are the types generated from the schema (package org.goatarena.protocol).
 */
public final class Agent {
    /** Reads every message; unknown fields are ignored, as the protocol asks. */
    static final ObjectMapper JSON =
            new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private Agent() {}

    /** What a bot author writes: a name and what to do at each message. */
    public interface Bot {
        /** Sent in the hello answer. */
        String name();

        /**
         * Called once before the hello answer, inside the start-up limit: load classes and read
         * a sample message here, so that the first decision is not slowed by a cold JVM.
         */
        default void warmUp() {}

        /** A game begins: reset per-game state here (one process plays many games). */
        void start(Start start);

        /** The index of the chosen action in {@code request.message().getActions()}. */
        int decide(Request request);

        /** A game ended. */
        default void end(End end) {}
    }

    /**
     * A request for an action: the generic decide message (its actions and observation as plain
     * values) and the whole line, to read again with the game's generated types.
     */
    public static final class Request {
        private final Decide message;
        private final JsonNode line;
        private final long receivedNanos;

        Request(Decide message, JsonNode line, long receivedNanos) {
            this.message = message;
            this.line = line;
            this.receivedNanos = receivedNanos;
        }

        /** The generic decide message. */
        public Decide message() {
            return message;
        }

        /** The line read as one of the game's types: {@code read(MountainGoatsDecide.class)}. */
        public <T> T read(Class<T> type) throws JsonProcessingException {
            return JSON.treeToValue(line, type);
        }

        /** The milliseconds left for this decision, measured from when its line was read. */
        public long timeLeftMs() {
            return message.getTimeMS() - (System.nanoTime() - receivedNanos) / 1_000_000;
        }
    }

    /** Writes one line to stderr, the bot's own log (the referee keeps it, never parses it). */
    public static void log(String message) {
        System.err.println(message);
        System.err.flush();
    }

    /**
     * Plays on stdin and stdout until quit or the end of input. The answers have stdout to
     * themselves: the bot's own prints on System.out go to stderr, its log, from here on.
     */
    public static void run(Bot bot) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Writer out = new OutputStreamWriter(new FileOutputStream(FileDescriptor.out), StandardCharsets.UTF_8);
        System.out.flush();
        System.setOut(System.err);
        serve(bot, in, out);
    }

    /** Plays on any reader and writer (the tests feed it recorded lines). */
    public static void serve(Bot bot, BufferedReader in, Writer out) throws IOException {
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            if (!handle(bot, line, out)) {
                return;
            }
        }
    }

    /** Answers one line; returns false once it was quit. */
    static boolean handle(Bot bot, String line, Writer out) throws IOException {
        long received = System.nanoTime();
        JsonNode message = JSON.readTree(line);
        Map<String, Object> answer = null;
        switch (message.path("type").asText("")) {
            case "hello":
                bot.warmUp();
                answer = new LinkedHashMap<>();
                answer.put("type", "hello");
                answer.put("name", bot.name());
                answer.put("protocol", 1);
                break;
            case "start":
                bot.start(JSON.treeToValue(message, Start.class));
                break;
            case "decide":
                Request request = new Request(JSON.treeToValue(message, Decide.class), message, received);
                int index = bot.decide(request);
                answer = new LinkedHashMap<>();
                answer.put("type", "action");
                answer.put("index", index);
                answer.put("decision", request.message().getDecision());
                break;
            case "end":
                bot.end(JSON.treeToValue(message, End.class));
                break;
            case "quit":
                return false;
            default:
                // Any other type is skipped, as the protocol asks.
                break;
        }
        if (answer != null) {
            out.write(JSON.writeValueAsString(answer));
            out.write('\n');
            // A buffered answer is a late answer: flush every line.
            out.flush();
        }
        return true;
    }
}
