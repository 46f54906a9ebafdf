/* placeholder */ int rtr_placeholder_rtr_ecmp(void); int rtr_placeholder_rtr_ecmp(void) { return 0; }
