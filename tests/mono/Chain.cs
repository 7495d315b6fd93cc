// Chain.cs — the Mono workload for old/new across several heapshots
// (tests/test_mono.c, test_mono_chain). Compiled with mcs -unsafe at
// test time and run under mono --profile=log:heapshot,...
//
// Every object it makes has a number and a weak GC handle. After each
// of its five collections (checkpoints 1 to 5) it notes, for every
// number, the object's address as the handle finds it, or 0 if the
// handle says it died; at the end it prints "checkpoint number address"
// lines to the file named by its argument. Which objects are new, old
// and gone between two checkpoints is read from those lines, not from
// the profiler's file.
//
// Items (small: mark&sweep blocks) 0..7999 before 1; 8000..15999
// before 2, and the odd ones below 8000 dropped; before 3, 9 in 10 of
// 8000..15999 dropped (their blocks left sparse: the next major
// collection evacuates the rest, so old objects move), and
// 16000..19999 made; before 4, half of those dropped and 20000..22999
// made; before 5, the multiples of 4 below 8000 dropped and
// 23000..23499 made. Big arrays (byte[9000], the large object space,
// allocated there with no event) 30000..30019 before 1; 30000..30009
// dropped before 3, and after 3 30020..30029 made, which the runtime
// puts at the addresses of the dead ones: only heapshot 3 tells that
// the object at such an address is not the one of heapshot 1.
using System;
using System.IO;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Chain {
	class Item { public Item Next; public int Id; public long Pad; }

	static class Program {
		const int NITEM = 23500, BIG0 = 30000, NBIG = 30, NCHECK = 5;
		static Item[] items = new Item[NITEM];
		static byte[][] bigs = new byte[NBIG][];
		static GCHandle[] weak = new GCHandle[NITEM + NBIG];
		static long[,] addr = new long[NCHECK + 1, NITEM + NBIG];
		static int slot = -1;

		// The address of o: TypedReference holds a pointer to the
		// variable; which of its words that is, Slot() finds.
		static unsafe long Addr(object o)
		{
			TypedReference tr = __makeref(o);
			IntPtr *w = (IntPtr *)(&tr);
			return (long)*(IntPtr *)w[slot];
		}

		static unsafe int Slot()
		{
			long x = 0x1234567890abcdefL;
			TypedReference tr = __makeref(x);
			IntPtr *w = (IntPtr *)(&tr);
			for (int i = 0; i < 3; i++)
				if (((long)w[i] & 7) == 0 && (long)w[i] != 0 && *(long *)w[i] == x)
					return i;
			throw new Exception("no pointer to the variable in a TypedReference");
		}

		static void Make(int lo, int hi)
		{
			for (int i = lo; i < hi; i++) {
				items[i] = new Item { Id = i };
				weak[i] = GCHandle.Alloc(items[i], GCHandleType.Weak);
			}
		}

		static void MakeBig(int lo, int hi)
		{
			for (int i = lo; i < hi; i++) {
				bigs[i - BIG0] = new byte[9000];
				weak[NITEM + i - BIG0] = GCHandle.Alloc(bigs[i - BIG0], GCHandleType.Weak);
			}
		}

		// Of lo..hi, only those of remainder keep by every are kept.
		[MethodImpl(MethodImplOptions.NoInlining)]
		static void Drop(int lo, int hi, int every, int keep)
		{
			for (int i = lo; i < hi; i++)
				if (i % every != keep)
					items[i] = null;
		}

		// Overwrites the stack below Main: no stale pointer to what
		// was dropped keeps it alive (the scan is conservative).
		[MethodImpl(MethodImplOptions.NoInlining)]
		static long Clobber(int depth)
		{
			long a = depth, b = depth * 3, c = depth * 7, d = depth * 11;
			if (depth > 0)
				a += Clobber(depth - 1);
			return a + b + c + d;
		}

		[MethodImpl(MethodImplOptions.NoInlining)]
		static void Note(int c)
		{
			for (int i = 0; i < NITEM + NBIG; i++) {
				object o = weak[i].IsAllocated ? weak[i].Target : null;
				addr[c, i] = o == null ? 0 : Addr(o);
			}
		}

		static void Checkpoint(int c)
		{
			Clobber(64);
			GC.Collect();
			GC.WaitForPendingFinalizers();
			Note(c);
		}

		static int Main(string[] args)
		{
			slot = Slot();
			Make(0, 8000);
			MakeBig(BIG0, BIG0 + 20);
			Checkpoint(1);
			Make(8000, 16000);
			Drop(0, 8000, 2, 0);
			Checkpoint(2);
			Drop(8000, 16000, 10, 0);
			for (int i = 0; i < 10; i++)
				bigs[i] = null;
			Make(16000, 20000);
			Checkpoint(3);
			MakeBig(BIG0 + 20, BIG0 + 30);
			Drop(16000, 20000, 2, 0);
			Make(20000, 23000);
			Checkpoint(4);
			Drop(0, 8000, 4, 2);
			Make(23000, 23500);
			Checkpoint(5);
			using (var w = new StreamWriter(args[0]))
				for (int c = 1; c <= NCHECK; c++)
					for (int i = 0; i < NITEM + NBIG; i++)
						w.WriteLine("{0} {1} {2}", c, i < NITEM ? i : BIG0 + i - NITEM, addr[c, i]);
			return 0;
		}
	}
}
