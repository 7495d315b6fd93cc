// Contended.java — a heap holding instances of the JDK's @Contended
// classes (ForkJoinPool and its WorkQueues, SubmissionPublisher's
// BufferedSubscription, Striped64$Cell, ConcurrentHashMap$CounterCell,
// Exchanger$Node, Thread and subclasses of subclasses of it) and of
// classes of its own with @Contended (sizes no table can know), built
// once, then quiet: every thread it started waits forever. Compile with
// --add-exports java.base/jdk.internal.vm.annotation=ALL-UNNAMED; run
// with -XX:-RestrictContended (else the JVM ignores the annotation
// outside the JDK), --add-opens java.base/java.util.concurrent=ALL-UNNAMED
// and --add-opens java.base/java.util.concurrent.atomic=ALL-UNNAMED (it
// looks at the cells to know contention made them).
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Exchanger;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.SubmissionPublisher;
import java.util.concurrent.atomic.LongAdder;

public class Contended {
    static final CountDownLatch NEVER = new CountDownLatch(1);
    static final List<Object> KEEP = new ArrayList<>();
    static final List<Thread> STARTED = new ArrayList<>();

    // a worker thread two levels below Thread, with fields of its own
    static final class Worker extends ForkJoinWorkerThread {
        long started = System.nanoTime();
        int index;
        Worker(ForkJoinPool p) {
            super(p);
            synchronized (STARTED) { STARTED.add(this); }
        }
    }
    static class Waiter extends Thread {
        long since;
        public void run() { await(); }
    }
    static final class NamedWaiter extends Waiter { short tag; Object note = "n"; }

    // @Contended of the program's own: a field group, a whole class
    static final class Hot {
        @jdk.internal.vm.annotation.Contended("hot") long count;
        @jdk.internal.vm.annotation.Contended("hot") int flags;
        Object owner;
    }
    @jdk.internal.vm.annotation.Contended
    static final class Slot { long value; }

    static void await() {
        try { NEVER.await(); } catch (InterruptedException e) { }
    }

    static Object field(Object o, Class<?> c, String name) throws Exception {
        Field f = c.getDeclaredField(name);
        f.setAccessible(true);
        return f.get(o);
    }

    // threads hammering `work` together until `made` says contention showed
    interface Check { boolean made() throws Exception; }
    static void contend(Runnable work, Check made) throws Exception {
        for (int round = 0; round < 1000 && !made.made(); round++) {
            CountDownLatch go = new CountDownLatch(1);
            Thread[] t = new Thread[4];
            for (int i = 0; i < t.length; i++) {
                t[i] = new Thread(() -> {
                    try { go.await(); } catch (InterruptedException e) { }
                    for (int k = 0; k < 100000; k++)
                        work.run();
                });
                t[i].start();
            }
            go.countDown();
            for (Thread x : t)
                x.join();
        }
        if (!made.made())
            throw new IllegalStateException("no contention");
    }

    public static void main(String[] args) throws Exception {
        ForkJoinPool pool = new ForkJoinPool(3, Worker::new, null, false);
        for (int i = 0; i < 6; i++)
            pool.submit(Contended::await);
        KEEP.add(pool);

        ExecutorService exec = Executors.newSingleThreadExecutor();
        SubmissionPublisher<Integer> pub = new SubmissionPublisher<>(exec, 32);
        CountDownLatch got = new CountDownLatch(100);
        pub.subscribe(new Flow.Subscriber<Integer>() {
            public void onSubscribe(Flow.Subscription s) { s.request(Long.MAX_VALUE); }
            public void onNext(Integer item) { got.countDown(); }
            public void onError(Throwable t) { }
            public void onComplete() { }
        });
        for (int i = 0; i < 100; i++)
            pub.submit(i);
        got.await();
        KEEP.add(pub);
        KEEP.add(exec);

        LongAdder adder = new LongAdder();
        contend(adder::increment,
                () -> field(adder, adder.getClass().getSuperclass(), "cells") != null);
        KEEP.add(adder);

        ConcurrentHashMap<Object, Object> map = new ConcurrentHashMap<>();
        contend(() -> map.put(new Object(), Boolean.TRUE),
                () -> field(map, ConcurrentHashMap.class, "counterCells") != null);
        map.clear();
        KEEP.add(map);

        Exchanger<Object> ex = new Exchanger<>();
        Thread exchanger = new Thread(() -> {
            try { ex.exchange("x"); } catch (InterruptedException e) { }
        });
        exchanger.start();
        STARTED.add(exchanger);
        KEEP.add(ex);

        for (int i = 0; i < 5; i++)  // enough for the gaps to tell
            KEEP.add(new Hot());
        for (int i = 0; i < 2; i++)  // the fewest whose gaps tell
            KEEP.add(new Slot());

        for (int i = 0; i < 3; i++) {
            Waiter w = i < 2 ? new Waiter() : new NamedWaiter(); // one: no gaps to go by
            w.start();
            KEEP.add(w);
            STARTED.add(w);
        }
        // quiet before READY: every thread parked for good
        synchronized (STARTED) {
            for (Thread t : STARTED)
                while (t.getState() != Thread.State.WAITING)
                    Thread.sleep(10);
        }
        System.out.println("READY");
        await();
    }
}
