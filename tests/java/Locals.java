// Locals.java — the workload of tests/test_sweep.c's thread-locals test:
// four threads, each named heapwalk-locals-N, each holding byte[]
// payloads of lengths of its own in ThreadLocals, parked when the dump
// is taken. The lengths are odd numbers nothing of the JDK's allocates,
// so that a test finds the payloads by class and length alone:
//
//   heapwalk-locals-0   byte[100003]
//   heapwalk-locals-1   byte[200003], byte[30011] (a second ThreadLocal)
//   heapwalk-locals-2   byte[400009]
//   heapwalk-locals-3   byte[600011], byte[50021] (an InheritableThreadLocal)
//
// Quiet after READY (gen-dump.sh).
import java.util.concurrent.CountDownLatch;

public class Locals {
    static final ThreadLocal<byte[]> FIRST = new ThreadLocal<>();
    static final ThreadLocal<byte[]> SECOND = new ThreadLocal<>();
    static final InheritableThreadLocal<byte[]> INHERITED = new InheritableThreadLocal<>();
    static final int[][] LENGTHS = {
        { 100_003 }, { 200_003, 30_011 }, { 400_009 }, { 600_011, 50_021 },
    };

    static volatile boolean stop;

    static void hold(int n, CountDownLatch ready) {
        int[] len = LENGTHS[n];
        FIRST.set(new byte[len[0]]);
        if (len.length > 1)
            (n == 3 ? INHERITED : SECOND).set(new byte[len[1]]);
        ready.countDown();
        while (!stop) {
            try { Thread.sleep(100_000); } catch (InterruptedException e) { return; }
        }
    }

    public static void main(String[] args) throws Exception {
        CountDownLatch ready = new CountDownLatch(LENGTHS.length);
        for (int i = 0; i < LENGTHS.length; i++) {
            final int n = i;
            Thread t = new Thread(() -> hold(n, ready), "heapwalk-locals-" + i);
            t.setDaemon(true);
            t.start();
        }
        ready.await();
        for (int k = 0; k < 3; k++) { System.gc(); Thread.sleep(200); }
        System.out.println("READY " + ProcessHandle.current().pid());
        System.out.flush();
        while (!stop)
            Thread.sleep(100_000);
    }
}
