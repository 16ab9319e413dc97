package goatarena.kit;

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The goatarena bot protocol (docs/protocol.md): reads the referee's JSON lines, hands start,
 * decide and end to a {@link Bot}, and writes each answer as one flushed line.
 */
public final class Agent {
    private static final Gson GSON = new Gson();

    private Agent() {}

    /** What a bot author writes: a name and what to do at each message. */
    public interface Bot {
        /** Sent in the hello answer. */
        String name();

        /** A game begins: reset per-game state here (one process plays many games). */
        void start(Start start);

        /** The index of the chosen action in {@code request.actions}. */
        int decide(Decide request);

        /** A game ended. */
        default void end(End end) {}
    }

    /** A game's clock in milliseconds. */
    public static final class TimeControl {
        public long moveMs;
        public long bankMs;
        public long incrementMs;
    }

    /** The start of a game: the game, your seat and your seed. */
    public static final class Start {
        public String game;
        public int seat;
        public List<String> players = new ArrayList<>();
        public TimeControl time = new TimeControl();
        public JsonObject options = new JsonObject();
        public String match = "";
        /**
         * From 0 to 2^64-1, held as the 64 bits of a long: values above 2^63-1 are negative
         * here. {@link #seedText()} writes it unsigned; as a generator's seed the bits are
         * what matters.
         */
        public long seed;

        /** The seed as the referee wrote it (unsigned decimal). */
        public String seedText() {
            return Long.toUnsignedString(seed);
        }
    }

    /** One public decision made since your previous decide; hidden parts are null. */
    public static final class Event {
        public int seat;
        public JsonElement action;
    }

    /**
     * A request for an action. The actions and the observation stay JSON: read them with the
     * game's types ({@link MountainGoats}).
     */
    public static final class Decide {
        public long decision;
        public List<JsonElement> actions = new ArrayList<>();
        public long timeMs;
        public List<Event> events = new ArrayList<>();
        public JsonObject observation = new JsonObject();
        /** When the line was read (System.nanoTime): the clock started just before. */
        public long receivedNanos;

        /** The milliseconds left for this decision, measured from when its line was read. */
        public long timeLeftMs() {
            return timeMs - (System.nanoTime() - receivedNanos) / 1_000_000;
        }
    }

    /** The result of a game. */
    public static final class End {
        public double[] scores;
        public int[] ranks;
        public int seat;
    }

    /** Writes one line to stderr, the bot's own log (the referee keeps it, never parses it). */
    public static void log(String message) {
        System.err.println(message);
        System.err.flush();
    }

    /** Plays on stdin and stdout until quit or the end of input. */
    public static void run(Bot bot) throws IOException {
        Reader in = new InputStreamReader(System.in, StandardCharsets.UTF_8);
        Writer out = new OutputStreamWriter(new FileOutputStream(FileDescriptor.out), StandardCharsets.UTF_8);
        serve(bot, new BufferedReader(in), out);
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
        JsonObject message = JsonParser.parseString(line).getAsJsonObject();
        JsonElement type = message.get("type");
        String kind = type != null && type.isJsonPrimitive() ? type.getAsString() : "";
        JsonObject answer = null;
        switch (kind) {
            case "hello":
                answer = new JsonObject();
                answer.addProperty("type", "hello");
                answer.addProperty("name", bot.name());
                answer.addProperty("protocol", 1);
                break;
            case "start":
                bot.start(start(message));
                break;
            case "decide":
                Decide request = decide(message);
                request.receivedNanos = received;
                int index = bot.decide(request);
                answer = new JsonObject();
                answer.addProperty("type", "action");
                answer.addProperty("index", index);
                answer.addProperty("decision", request.decision);
                break;
            case "end":
                bot.end(GSON.fromJson(message, End.class));
                break;
            case "quit":
                return false;
            default:
                // Any other type is skipped, as the protocol asks.
                break;
        }
        if (answer != null) {
            out.write(answer.toString());
            out.write('\n');
            // A buffered answer is a late answer: flush every line.
            out.flush();
        }
        return true;
    }

    static Start start(JsonObject message) {
        Start start = new Start();
        start.game = message.get("game").getAsString();
        start.seat = message.get("seat").getAsInt();
        for (JsonElement player : message.getAsJsonArray("players")) {
            start.players.add(player.getAsString());
        }
        JsonObject time = message.getAsJsonObject("time");
        start.time.moveMs = time.get("move_ms").getAsLong();
        start.time.bankMs = time.get("bank_ms").getAsLong();
        start.time.incrementMs = time.get("increment_ms").getAsLong();
        if (message.has("options") && message.get("options").isJsonObject()) {
            start.options = message.getAsJsonObject("options");
        }
        if (message.has("match")) {
            start.match = message.get("match").getAsString();
        }
        // Gson keeps a number's digits: parse them unsigned, or 2^63 and above would fail.
        start.seed = Long.parseUnsignedLong(message.get("seed").getAsString());
        return start;
    }

    static Decide decide(JsonObject message) {
        Decide request = new Decide();
        request.decision = message.get("decision").getAsLong();
        for (JsonElement action : message.getAsJsonArray("actions")) {
            request.actions.add(action);
        }
        request.timeMs = message.get("time_ms").getAsLong();
        JsonArray events = message.has("events") ? message.getAsJsonArray("events") : new JsonArray();
        for (JsonElement item : events) {
            JsonObject fields = item.getAsJsonObject();
            Event event = new Event();
            event.seat = fields.get("seat").getAsInt();
            event.action = fields.get("action");
            request.events.add(event);
        }
        if (message.has("observation") && message.get("observation").isJsonObject()) {
            request.observation = message.getAsJsonObject("observation");
        }
        return request;
    }

    /** Reads a JSON value as one of the game's types (the fields are named as on the wire). */
    public static <T> T read(JsonElement value, Class<T> type) {
        return GSON.fromJson(value, type);
    }
}
