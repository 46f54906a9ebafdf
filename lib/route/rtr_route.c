/* placeholder */ int rtr_placeholder_rtr_route(void); int rtr_placeholder_rtr_route(void) { return 0; }
