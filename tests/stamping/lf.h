/* a stand-in: tests/stamping only configures */
