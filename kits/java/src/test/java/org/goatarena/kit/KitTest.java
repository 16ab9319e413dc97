package org.goatarena.kit;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.goatarena.protocol.Decide;
import org.goatarena.protocol.End;
import org.goatarena.protocol.GoatLordsAction;
import org.goatarena.protocol.GoatLordsDecide;
import org.goatarena.protocol.GoatNGoatDecide;
import org.goatarena.protocol.HerrDerZiegenDecide;
import org.goatarena.protocol.MountainGoatsAction;
import org.goatarena.protocol.MountainGoatsDecide;
import org.goatarena.protocol.MountainGoatsObservation;
import org.goatarena.protocol.Start;

/** The kit's unit tests, on the lines recorded from real games in fixtures/. */
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
        final List<Start> starts = new ArrayList<>();
        final List<Agent.Request> requests = new ArrayList<>();
        final List<End> ends = new ArrayList<>();

        @Override
        public String name() {
            return "fixture";
        }

        @Override
        public void start(Start start) {
            starts.add(start);
        }

        @Override
        public int decide(Agent.Request request) {
            requests.add(request);
            return request.message().getActions().length - 1;
        }

        @Override
        public void end(End end) {
            ends.add(end);
        }
    }

    private static String play(LastBot bot, String input) throws IOException {
        StringWriter out = new StringWriter();
        Agent.serve(bot, new BufferedReader(new StringReader(input)), out);
        return out.toString();
    }

    /** The lines seat 0 was sent in a recorded game (fixtures/GAME.json, from kits/fixtures.py). */
    private static String input(Path fixture) throws IOException {
        StringBuilder lines = new StringBuilder();
        for (JsonNode line : Agent.JSON.readTree(fixture.toFile()).path("lines")) {
            lines.append(line.asText()).append('\n');
        }
        return lines.toString();
    }

    private static LastBot recorded(String game) throws IOException {
        LastBot bot = new LastBot();
        play(bot, input(Path.of("fixtures", game + ".json")));
        return bot;
    }

    static void recordedGamesAreAnsweredLineForLine() throws IOException {
        int files = 0;
        try (DirectoryStream<Path> paths = Files.newDirectoryStream(Path.of("fixtures"), "*.json")) {
            for (Path path : paths) {
                files++;
                LastBot bot = new LastBot();
                String[] answers = play(bot, input(path)).split("\n");
                String seed = Agent.JSON.readTree(path.toFile()).path("seed").asText();
                String file = path.getFileName().toString();
                JsonNode hello = Agent.JSON.readTree(answers[0]);
                expect(hello.path("type").asText().equals("hello") && hello.path("name").asText().equals("fixture"),
                        file + ": hello first");
                expect(!bot.requests.isEmpty() && answers.length == bot.requests.size() + 1,
                        file + ": one answer per decide");
                for (int i = 0; i < bot.requests.size() && i + 1 < answers.length; i++) {
                    Agent.Request request = bot.requests.get(i);
                    Decide message = request.message();
                    JsonNode answer = Agent.JSON.readTree(answers[i + 1]);
                    expect(answer.path("type").asText().equals("action")
                            && answer.path("index").asInt() == message.getActions().length - 1
                            && answer.path("decision").asLong() == message.getDecision(),
                            file + ": the answer to decision " + message.getDecision());
                    expect(message.getTimeMS() > 0 && request.timeLeftMs() <= message.getTimeMS()
                            && !message.getObservation().isEmpty(),
                            file + ": time and observation of decision " + message.getDecision());
                }
                String game = file.replace(".json", "");
                expect(bot.starts.size() == 1 && bot.starts.get(0).getGame().equals(game)
                        && bot.starts.get(0).getPlayers().length == 2
                        && bot.starts.get(0).getSeed().toString().equals(seed), file + ": start read, its seed exactly");
                expect(bot.ends.size() == 1 && bot.ends.get(0).getScores().length == 2
                        && bot.ends.get(0).getRanks().length == 2, file + ": end read");
            }
        }
        expect(files == 4, "the 4 recorded games are in fixtures/");
    }

    static void everyGameDecidesWithItsGeneratedTypes() throws IOException {
        int moves = 0;
        for (Agent.Request request : recorded("goat-lords").requests) {
            GoatLordsDecide typed = request.read(GoatLordsDecide.class);
            expect(typed.getObservation().getHandSizes().length == 2, "goat-lords hand sizes");
            for (GoatLordsAction action : typed.getActions()) {
                expect(action.goatLordsMoveValue != null || action.enumValue != null, "goat-lords action read");
                moves += action.goatLordsMoveValue != null ? 1 : 0;
            }
        }
        expect(moves > 0, "goat-lords moves read");
        for (Agent.Request request : recorded("goat-n-goat").requests) {
            expect(request.read(GoatNGoatDecide.class).getObservation().getFlocks().length == 2, "goat-n-goat flocks");
        }
        for (Agent.Request request : recorded("herr-der-ziegen").requests) {
            HerrDerZiegenDecide typed = request.read(HerrDerZiegenDecide.class);
            expect(typed.getObservation().getPasture().length == typed.getObservation().getSize(), "pasture");
        }
        LastBot mountain = recorded("mountain-goats");
        SplittableRandom rng = new SplittableRandom(1);
        for (Agent.Request request : mountain.requests) {
            MountainGoatsDecide typed = request.read(MountainGoatsDecide.class);
            MountainGoatsObservation o = typed.getObservation();
            expect(o.getSeat() == mountain.starts.get(0).getSeat() && o.getDice().length == 4
                    && o.getSteps().length == 2 && o.getBonusLeft() != null, "mountain-goats observation");
            MountainGoatsAction[] actions = typed.getActions();
            int chosen = ExampleBot.bestClimb(o, actions, rng);
            expect(actions[chosen].getMove().length > 0 || actions.length == 1,
                    "decision " + typed.getDecision() + " climbs something");
        }
    }

    static void bestClimbTakesTheSummitToken() {
        MountainGoatsObservation o = new MountainGoatsObservation();
        o.setMountains(new long[] {5, 6, 7, 8, 9, 10});
        o.setHeights(new long[] {4, 4, 3, 3, 2, 2});
        o.setSteps(new long[][] {{0, 0, 0, 0, 0, 1}, {0, 0, 0, 0, 0, 0}});
        o.setSupply(new long[] {10, 9, 8, 7, 6, 5});
        long[][] moves = {{}, {5, 5}, {10}, {6}};
        MountainGoatsAction[] actions = new MountainGoatsAction[moves.length];
        for (int i = 0; i < moves.length; i++) {
            actions[i] = new MountainGoatsAction();
            actions[i].setMove(moves[i]);
        }
        expect(ExampleBot.bestClimb(o, actions, new SplittableRandom(1)) == 2, "climbs to 10's summit");
        o.getSupply()[5] = 0;
        expect(ExampleBot.bestClimb(o, actions, new SplittableRandom(1)) == 1, "with 10's tokens gone, 5 twice");
    }

    static void seedAboveLongIsExact() throws IOException {
        LastBot bot = new LastBot();
        play(bot, "{\"type\":\"start\",\"game\":\"mountain-goats\",\"seat\":1,\"players\":[\"a\",\"b\"],"
                + "\"time\":{\"move_ms\":1000,\"bank_ms\":0,\"increment_ms\":0},\"options\":{},\"match\":\"\","
                + "\"seed\":18446744073709551615}\n");
        expect(bot.starts.size() == 1
                && bot.starts.get(0).getSeed().equals(new BigInteger("18446744073709551615")),
                "the seed 2^64-1 is read exactly");
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
        everyGameDecidesWithItsGeneratedTypes();
        bestClimbTakesTheSummitToken();
        seedAboveLongIsExact();
        unknownMessagesAndFieldsAreSkipped();
        new ExampleBot().warmUp();
        if (failures > 0) {
            System.err.println(failures + " failed");
            System.exit(1);
        }
        System.out.println("all tests passed");
    }
}
