import { describeServiceBasics } from '@cw-tools/testing';
import { createApp } from '../src/app';

describeServiceBasics('reporting-api', createApp);
