package goatarena.kit;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/** The kit's unit tests, on the lines recorded from real games in testdata/. */
public final class KitTest {
    private static int failures = 0;

    private static void expect(boolean ok, String what) {
        if (!ok) {
            System.err.println("FAIL: " + what);
            failures++;
        }
    }

    /** Answers every decide with its last action and keeps what it was told. */
    static final class LastBot implements Agent.Bot {
        final List<Agent.Start> starts = new ArrayList<>();
        final List<Agent.Decide> requests = new ArrayList<>();
        final List<Agent.End> ends = new ArrayList<>();

        @Override
        public String name() {
            return "fixture";
        }

        @Override
        public void start(Agent.Start start) {
            starts.add(start);
        }

        @Override
        public int decide(Agent.Decide request) {
            requests.add(request);
            return request.actions.size() - 1;
        }

        @Override
        public void end(Agent.End end) {
            ends.add(end);
        }
    }

    private static String play(LastBot bot, String input) throws IOException {
        StringWriter out = new StringWriter();
        Agent.serve(bot, new BufferedReader(new StringReader(input)), out);
        return out.toString();
    }

    static void recordedGamesAreAnsweredLineForLine() throws IOException {
        int files = 0;
        try (DirectoryStream<Path> paths = Files.newDirectoryStream(Path.of("testdata"), "*.jsonl")) {
            for (Path path : paths) {
                files++;
                LastBot bot = new LastBot();
                String[] answers = play(bot, Files.readString(path)).split("\n");
                String file = path.getFileName().toString();
                JsonObject hello = JsonParser.parseString(answers[0]).getAsJsonObject();
                expect(hello.get("type").getAsString().equals("hello")
                        && hello.get("name").getAsString().equals("fixture"), file + ": hello first");
                expect(!bot.requests.isEmpty() && answers.length == bot.requests.size() + 1,
                        file + ": one answer per decide");
                for (int i = 0; i < bot.requests.size() && i + 1 < answers.length; i++) {
                    Agent.Decide request = bot.requests.get(i);
                    JsonObject answer = JsonParser.parseString(answers[i + 1]).getAsJsonObject();
                    expect(answer.get("type").getAsString().equals("action")
                            && answer.get("index").getAsInt() == request.actions.size() - 1
                            && answer.get("decision").getAsLong() == request.decision,
                            file + ": the answer to decision " + request.decision);
                    expect(request.timeMs > 0 && request.timeLeftMs() <= request.timeMs
                            && request.observation.size() > 0,
                            file + ": time and observation of decision " + request.decision);
                }
                String game = file.replace(".jsonl", "");
                expect(bot.starts.size() == 1 && bot.starts.get(0).game.equals(game)
                        && bot.starts.get(0).players.size() == 2, file + ": start read");
                expect(bot.ends.size() == 1 && bot.ends.get(0).scores.length == 2
                        && bot.ends.get(0).ranks.length == 2, file + ": end read");
            }
        }
        expect(files == 4, "the 4 recorded games are in testdata/");
    }

    static void mountainGoatsObservationIsTyped() throws IOException {
        LastBot bot = new LastBot();
        play(bot, Files.readString(Path.of("testdata", "mountain-goats.jsonl")));
        SplittableRandom rng = new SplittableRandom(1);
        for (Agent.Decide request : bot.requests) {
            MountainGoats.Observation o = MountainGoats.observation(request);
            expect(o.seat == bot.starts.get(0).seat && o.toAct == o.seat && o.dice.length == 4
                    && o.steps.length == 2 && o.heights.length == 6 && o.bonusLeft != null,
                    "observation of decision " + request.decision);
            List<MountainGoats.Action> actions = MountainGoats.actions(request);
            int chosen = ExampleBot.bestClimb(o, actions, rng);
            expect(actions.get(chosen).move.length > 0 || actions.size() == 1,
                    "decision " + request.decision + " climbs something");
        }
    }

    static void bestClimbTakesTheSummitToken() {
        MountainGoats.Observation o = new MountainGoats.Observation();
        o.mountains = new int[] {5, 6, 7, 8, 9, 10};
        o.heights = new int[] {4, 4, 3, 3, 2, 2};
        o.steps = new int[][] {{0, 0, 0, 0, 0, 1}, {0, 0, 0, 0, 0, 0}};
        o.supply = new int[] {10, 9, 8, 7, 6, 5};
        List<MountainGoats.Action> actions = new ArrayList<>();
        for (int[] move : new int[][] {{}, {5, 5}, {10}, {6}}) {
            MountainGoats.Action action = new MountainGoats.Action();
            action.move = move;
            actions.add(action);
        }
        expect(ExampleBot.bestClimb(o, actions, new SplittableRandom(1)) == 2, "climbs to 10's summit");
        o.supply[5] = 0;
        expect(ExampleBot.bestClimb(o, actions, new SplittableRandom(1)) == 1, "with 10's tokens gone, 5 twice");
    }

    static void seedAboveLongIsExact() throws IOException {
        LastBot bot = new LastBot();
        play(bot, "{\"type\":\"start\",\"game\":\"mountain-goats\",\"seat\":1,\"players\":[\"a\",\"b\"],"
                + "\"time\":{\"move_ms\":1000,\"bank_ms\":0,\"increment_ms\":0},\"options\":{},\"match\":\"\","
                + "\"seed\":18446744073709551615}\n");
        expect(bot.starts.size() == 1 && bot.starts.get(0).seed == -1L
                && bot.starts.get(0).seedText().equals("18446744073709551615"), "the seed 2^64-1 is read exactly");
    }

    static void unknownMessagesAndFieldsAreSkipped() throws IOException {
        String out = play(new LastBot(), "{\"type\":\"news\",\"decide\":{\"type\":\"decide\"}}\n"
                + "{\"type\":\"decide\",\"decision\":4,\"actions\":[\"a\",\"b\"],\"time_ms\":50,\"events\":[],"
                + "\"observation\":{},\"later\":[1]}\n"
                + "{\"type\":\"quit\"}\n"
                + "{\"type\":\"decide\",\"decision\":5,\"actions\":[\"a\"],\"time_ms\":50,\"events\":[],\"observation\":{}}\n");
        expect(out.equals("{\"type\":\"action\",\"index\":1,\"decision\":4}\n"), "answered " + out);
    }

    /** Runs every test; exits non-zero when one failed. */
    public static void main(String[] args) throws IOException {
        recordedGamesAreAnsweredLineForLine();
        mountainGoatsObservationIsTyped();
        bestClimbTakesTheSummitToken();
        seedAboveLongIsExact();
        unknownMessagesAndFieldsAreSkipped();
        if (failures > 0) {
            System.err.println(failures + " failed");
            System.exit(1);
        }
        System.out.println("all tests passed");
    }
}
