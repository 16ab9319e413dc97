package org.goatarena.kit;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.IOException;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.goatarena.protocol.End;
import org.goatarena.protocol.MountainGoatsAction;
import org.goatarena.protocol.MountainGoatsDecide;
import org.goatarena.protocol.MountainGoatsObservation;
import org.goatarena.protocol.Start;

/**
 * The example bot: a greedy climber in mountain-goats, uniformly random elsewhere. {@code make}
 * builds it; {@code ./bot} runs it.
 */
public final class ExampleBot implements Agent.Bot {
    /** A mountain-goats decide, read once before hello so that the first real one is quick. */
    private static final String SAMPLE = "{\"type\":\"decide\",\"decision\":0,\"actions\":[{\"move\":[5],"
            + "\"groups\":[[5],[1,1,1]]}],\"time_ms\":1000,\"events\":[{\"seat\":1,\"action\":{\"move\":[],"
            + "\"groups\":[[1,1,1,1]]}}],\"observation\":{\"seat\":0,\"to_act\":0,\"round\":1,\"dice\":[5,1,1,1],"
            + "\"mountains\":[5,6,7,8,9,10],\"heights\":[4,4,3,3,2,2],\"steps\":[[0,0,0,0,0,0],[0,0,0,0,0,0]],"
            + "\"supply\":[10,9,8,7,6,5],\"tokens\":[[0,0,0,0,0,0],[0,0,0,0,0,0]],\"bonus_left\":[15,12,9,6],"
            + "\"bonuses\":[[],[]],\"scores\":[0,0],\"ending\":false}}";

    private String game = "";
    private SplittableRandom rng = new SplittableRandom(1);

    @Override
    public String name() {
        return "java-example";
    }

    @Override
    public void warmUp() {
        try {
            MountainGoatsDecide sample = Agent.JSON.readValue(SAMPLE, MountainGoatsDecide.class);
            bestClimb(sample.getObservation(), sample.getActions(), new SplittableRandom(0));
        } catch (JsonProcessingException error) {
            Agent.log("warm-up: " + error.getMessage());
        }
    }

    @Override
    public void start(Start start) {
        game = start.getGame();
        // The seed's low 64 bits: every seed up to 2^64-1 gives its own sequence.
        rng = new SplittableRandom(start.getSeed().longValue());
    }

    @Override
    public int decide(Agent.Request request) {
        if (game.equals("mountain-goats")) {
            try {
                MountainGoatsDecide typed = request.read(MountainGoatsDecide.class);
                return bestClimb(typed.getObservation(), typed.getActions(), rng);
            } catch (JsonProcessingException error) {
                Agent.log("cannot read the observation (" + error.getMessage() + "): playing at random");
            }
        }
        return rng.nextInt(request.message().getActions().length);
    }

    @Override
    public void end(End end) {
        Agent.log("game over: scores " + Arrays.toString(end.getScores()) + ", ranks "
                + Arrays.toString(end.getRanks()));
    }

    /**
     * What one more step on mountain index i is worth from step: the mountain's points when it
     * takes a token now (the goat reaches or is on the summit), less the further the goat is
     * from the summit, nothing once the mountain's tokens are gone.
     */
    static double climbWorth(MountainGoatsObservation o, long[] step, int i) {
        if (o.getSupply()[i] == 0) {
            return 0;
        }
        double points = o.getMountains()[i];
        long height = o.getHeights()[i];
        if (step[i] >= height - 1) {
            return points;
        }
        return points * (step[i] + 1) / height / 2;
    }

    /** The index of the move whose climbs are worth most, ties broken at random. */
    static int bestClimb(MountainGoatsObservation o, MountainGoatsAction[] actions, SplittableRandom rng) {
        int best = 0;
        double bestWorth = -1;
        for (int choice = 0; choice < actions.length; choice++) {
            long[] step = o.getSteps()[(int) o.getSeat()].clone();
            double worth = rng.nextDouble() * 0.01;
            for (long mountain : actions[choice].getMove()) {
                int i = indexOf(o.getMountains(), mountain);
                worth += climbWorth(o, step, i);
                if (step[i] < o.getHeights()[i]) {
                    step[i]++;
                }
            }
            if (worth > bestWorth) {
                best = choice;
                bestWorth = worth;
            }
        }
        return best;
    }

    private static int indexOf(long[] values, long value) {
        for (int i = 0; i < values.length; i++) {
            if (values[i] == value) {
                return i;
            }
        }
        throw new IllegalArgumentException("no mountain " + value);
    }

    /** Plays until quit. */
    public static void main(String[] args) throws IOException {
        Agent.run(new ExampleBot());
    }
}
