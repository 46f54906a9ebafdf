/* placeholder */ int rtr_placeholder_rtr_neigh(void); int rtr_placeholder_rtr_neigh(void) { return 0; }
