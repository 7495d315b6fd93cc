// Workload.cs — the Mono test workload: known objects across several
// major collections, each collection a heapshot of the log profiler
// (mono --profile=log:heapshot). Compiled with mcs at test time.
//
// Round 1 makes 300 Session (each with a byte[64] and 3 Leaf) and 5000
// Chaff, and keeps them all: the collection promotes them, densely, to
// the old generation. Round 2 makes 200 Cache, keeps 100 of them, and
// drops 9 Chaff in 10: their blocks are left sparse, so the next major
// collection evacuates the 500 left (GC move events of old objects).
// Round 3 drops the Sessions of odd number and makes 50 Late. Each round ends with GC.Collect():
// heapshots 1, 2, 3; the runtime adds one at shutdown (4). The expected
// numbers are in tests/test_mono.c, which says the same.
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;

namespace Workload {
	class Leaf { public int V; public Leaf(int v) { V = v; } }
	class Session {
		public byte[] Buf = new byte[64];
		public Leaf A, B, C;
		public int Id;
		public Session(int id) { Id = id; A = new Leaf(id); B = new Leaf(id + 1); C = new Leaf(id + 2); }
	}
	class Chaff { public long X, Y; }
	class Cache { public object Slot; public string Name; }
	class Late { public Session Owner; }

	static class Program {
		static List<Session> sessions = new List<Session>();
		static List<Chaff> chaff = new List<Chaff>();
		static List<Cache> caches = new List<Cache>();
		static List<Late> late = new List<Late>();

		[MethodImpl(MethodImplOptions.NoInlining)]
		static void Round1()
		{
			for (int i = 0; i < 300; i++)
				sessions.Add(new Session(i));
			for (int i = 0; i < 5000; i++)
				chaff.Add(new Chaff());
		}

		[MethodImpl(MethodImplOptions.NoInlining)]
		static void Round2()
		{
			for (int i = 0; i < 200; i++) {
				var c = new Cache();
				c.Name = "cache-" + i;
				if (i % 2 == 0)
					caches.Add(c);
			}
			var few = new List<Chaff>();
			for (int i = 0; i < chaff.Count; i += 10)
				few.Add(chaff[i]);
			chaff = few;
		}

		[MethodImpl(MethodImplOptions.NoInlining)]
		static void Round3()
		{
			var keep = new List<Session>();
			for (int i = 0; i < sessions.Count; i++)
				if (i % 2 == 0)
					keep.Add(sessions[i]);
			sessions = keep;
			for (int i = 0; i < 50; i++)
				late.Add(new Late { Owner = sessions[i] });
		}

		// Overwrites the stack below Main, so that sgen's conservative
		// scan finds no stale pointer to the garbage of a round.
		[MethodImpl(MethodImplOptions.NoInlining)]
		static long Clobber(int depth)
		{
			long a = depth, b = depth * 3, c = depth * 7, d = depth * 11;
			if (depth > 0)
				a += Clobber(depth - 1);
			return a + b + c + d;
		}

		static void Collect()
		{
			Clobber(64);
			GC.Collect();
			GC.WaitForPendingFinalizers();
		}

		static int Main(string[] args)
		{
			Round1();
			Collect();
			Round2();
			Collect();
			Round3();
			Collect();
			Console.WriteLine("sessions {0} chaff {1} caches {2} late {3}",
					  sessions.Count, chaff.Count, caches.Count, late.Count);
			return 0;
		}
	}
}
