/* placeholder */ int rtr_placeholder_cfg_libconfig(void); int rtr_placeholder_cfg_libconfig(void) { return 0; }
