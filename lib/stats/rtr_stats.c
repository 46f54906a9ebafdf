/* placeholder */ int rtr_placeholder_rtr_stats(void); int rtr_placeholder_rtr_stats(void) { return 0; }
