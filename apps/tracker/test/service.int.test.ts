import { describeServiceBasics } from '@cw/testing';
import { createApp } from '../src/app';

describeServiceBasics('tracker', createApp);
