// Bench.cs — the Mono heap of `make bench`: about N objects (argument,
// default 2.4 M) kept to the end: records of a few fields, strings,
// small arrays and lists, so that the log profiler's last heapshots hold
// them all. Compiled with mcs by bench/run.sh.
using System;
using System.Collections.Generic;

class Rec { public long Id; public string Name; public Rec Next; public int[] Vals; }
class Group { public List<Rec> Items = new List<Rec>(); public string Key; }

static class Bench {
	static List<Group> groups = new List<Group>();

	static int Main(string[] args)
	{
		int n = args.Length > 0 ? int.Parse(args[0]) : 2400000;
		Group g = null;
		Rec prev = null;
		// each Rec: itself, its name, its int[]: 3 objects
		for (int i = 0; i < n / 3; i++) {
			if (i % 1000 == 0) {
				g = new Group { Key = "group-" + i };
				groups.Add(g);
			}
			var r = new Rec { Id = i, Name = "rec-" + i, Next = prev, Vals = new int[i % 8] };
			g.Items.Add(r);
			prev = i % 50 == 0 ? null : r;
		}
		GC.Collect();
		Console.WriteLine("groups {0}", groups.Count);
		return 0;
	}
}
