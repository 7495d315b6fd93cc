// Timed.java — the workload for allocation times: BATCHES batches of
// COUNT Mark objects, each batch made between two readings of the wall
// clock that it prints ("BATCH b FROM ms TO ms", ms since the epoch),
// the batches some 300 ms apart; every Mark is kept and knows its batch.
// Then READY, and it waits for the file go in the directory given.
// First it allocates a few MB: a thread that ran before the agent set its
// sampling interval samples next only after the old interval's bytes
// (512 kB by default), and every Mark must be sampled.
import java.io.File;
import java.util.ArrayList;
import java.util.List;

public class Timed {
    static final int BATCHES = 4, COUNT = 500;

    static final class Mark {
        final int batch, n;
        Mark(int batch, int n) { this.batch = batch; this.n = n; }
    }
    static final List<Mark> KEPT = new ArrayList<>(BATCHES * COUNT);

    public static void main(String[] args) throws Exception {
        String dir = args[0];
        long warm = 0;
        for (int i = 0; i < 8; i++) warm += new byte[1 << 20].length;
        System.out.println("WARM " + warm);
        for (int b = 0; b < BATCHES; b++) {
            Thread.sleep(300);
            long from = System.currentTimeMillis();
            for (int i = 0; i < COUNT; i++) KEPT.add(new Mark(b, i));
            long to = System.currentTimeMillis();
            System.out.println("BATCH " + b + " FROM " + from + " TO " + to);
        }
        System.out.println("READY");
        File go = new File(dir, "go");
        while (!go.exists()) Thread.sleep(20);
    }
}
