// Program.cs — `make bench`'s .NET process: about N million objects
// (the argument, default 5) of a few kinds — order lines with strings,
// small arrays and references between them, a dictionary over them —
// held until standard input closes. Prints "pid N objects M" when done.
using System;
using System.Collections.Generic;

namespace HeapBench
{
	class Customer
	{
		public string Name;
		public List<Order> Orders = new List<Order>();
	}

	class Order
	{
		public long Id;
		public Customer Customer;
		public Line[] Lines;
	}

	class Line
	{
		public string Sku;
		public int Quantity;
		public Order Order;
	}

	static class Program
	{
		static int Main(string[] args)
		{
			double millions = args.Length > 0 ? double.Parse(args[0], System.Globalization.CultureInfo.InvariantCulture) : 5;
			long target = (long)(millions * 1e6), made = 0;
			var byName = new Dictionary<string, Customer>();
			var skus = new string[1000];
			for (int i = 0; i < skus.Length; i++)
				skus[i] = "SKU-" + i;
			// per order: Order, Line[3], 3 Line = 5 objects; per customer
			// of 20 orders also Customer, its name, its List and array
			for (int c = 0; made < target; c++) {
				var cu = new Customer { Name = "customer-" + c };
				byName[cu.Name] = cu;
				made += 4;
				for (int o = 0; o < 20; o++) {
					var or = new Order { Id = (long)c * 20 + o, Customer = cu, Lines = new Line[3] };
					for (int l = 0; l < 3; l++)
						or.Lines[l] = new Line { Sku = skus[(c + o + l) % skus.Length], Quantity = l + 1, Order = or };
					cu.Orders.Add(or);
					made += 5;
				}
			}
			GC.Collect();
			Console.WriteLine("pid " + Environment.ProcessId + " objects " + made);
			Console.Out.Flush();
			while (Console.ReadLine() != null) {
			}
			GC.KeepAlive(byName);
			return 0;
		}
	}
}
