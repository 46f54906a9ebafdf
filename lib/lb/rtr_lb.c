/* placeholder */ int rtr_placeholder_rtr_lb(void); int rtr_placeholder_rtr_lb(void) { return 0; }
