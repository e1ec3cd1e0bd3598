int xbench_empty_object;
